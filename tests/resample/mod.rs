//! The ways a real capture changes a screen (a phone's, an emulator's), for
//! measuring the readers on the real fixtures as such captures would show
//! them: `examples/auto_fixtures.rs` (`RESAMPLE=...`) and the falling-block
//! fixtures' test (`tests/replay.rs`) share them.
//!
//! `emu25` (scaled by 2.5, blurred), `half` (scaled by 0.6), `jpeg` (scaled
//! by 1.33, JPEG at quality 55), `dim` (three quarters as bright, four fifths
//! the contrast), `bright` (a quarter brighter), `phone` (scaled to 1080 wide
//! at the bottom of a 1080x1920 screen with a status bar); to compose with
//! `+`: `blur` (radius 1.2), `flat` (three quarters the contrast), `warm`
//! (red up a tenth, blue down 15 %) and `big` (scaled by 1.7).

#![allow(dead_code)]

use image::RgbImage;

/// The ways `RESAMPLE` changes a picture.
pub const RESAMPLINGS: [&str; 6] = ["emu25", "half", "jpeg", "dim", "bright", "phone"];

/// The changes composed for `RESAMPLE=combo`.
pub const COMBOS: [&str; 6] = [
    "bright+jpeg",
    "dim+half",
    "flat+blur",
    "warm+dim",
    "big+jpeg",
    "half+bright+blur",
];

/// The one-step changes that compose with `+`, besides `RESAMPLINGS`.
pub const STEPS: [&str; 4] = ["blur", "flat", "warm", "big"];

/// `img` changed by each `+`-separated step of `how` in turn; `None` when a
/// step is unknown.
pub fn resampled(img: &RgbImage, how: &str) -> Option<RgbImage> {
    how.split('+')
        .try_fold(img.clone(), |img, step| resampled_once(&img, step))
}

/// `img` changed as `how` says (see the module docs); `None` for no change.
pub fn resampled_once(img: &RgbImage, how: &str) -> Option<RgbImage> {
    use image::imageops::{blur, overlay, resize, FilterType};
    let (w, h) = img.dimensions();
    let scaled = |f: f64, filter| {
        let (sw, sh) = ((w as f64 * f).round() as u32, (h as f64 * f).round() as u32);
        resize(img, sw.max(1), sh.max(1), filter)
    };
    let mapped = |f: &dyn Fn(f64) -> f64| {
        let mut out = img.clone();
        for p in out.pixels_mut() {
            for v in p.0.iter_mut() {
                *v = f(*v as f64).round().clamp(0.0, 255.0) as u8;
            }
        }
        out
    };
    Some(match how {
        "emu25" => blur(&scaled(2.5, FilterType::Triangle), 1.2),
        "half" => scaled(0.6, FilterType::Lanczos3),
        "jpeg" => {
            let big = scaled(1.33, FilterType::CatmullRom);
            let mut buf = Vec::new();
            let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut buf, 55);
            big.write_with_encoder(enc).ok()?;
            image::load_from_memory_with_format(&buf, image::ImageFormat::Jpeg)
                .ok()?
                .into_rgb8()
        }
        "dim" => {
            let n = (w as f64 * h as f64).max(1.0);
            let mean = img
                .pixels()
                .map(|p| p.0.iter().map(|&v| v as f64).sum::<f64>() / 3.0)
                .sum::<f64>()
                / n
                * 0.75;
            mapped(&|v| mean + 0.8 * (0.75 * v - mean))
        }
        "bright" => mapped(&|v| 1.25 * v),
        "blur" => blur(img, 1.2),
        "flat" => mapped(&|v| 128.0 + 0.75 * (v - 128.0)),
        "big" => scaled(1.7, FilterType::CatmullRom),
        "warm" => {
            let mut out = img.clone();
            for p in out.pixels_mut() {
                p.0[0] = (p.0[0] as f64 * 1.1).round().min(255.0) as u8;
                p.0[2] = (p.0[2] as f64 * 0.85).round() as u8;
            }
            out
        }
        "phone" => {
            let (pw, ph) = (1080u32, 1920u32);
            let f = (pw as f64 / w as f64).min((ph - 200) as f64 / h as f64);
            let inner = scaled(f, FilterType::Triangle);
            let mut screen = RgbImage::from_pixel(pw, ph, image::Rgb([20, 20, 24]));
            for y in 0..70 {
                for x in 0..pw {
                    screen.put_pixel(x, y, image::Rgb([0, 0, 0]));
                }
            }
            let x = (pw - inner.width()) / 2;
            let y = ph - inner.height() - 60;
            overlay(&mut screen, &inner, x as i64, y as i64);
            screen
        }
        _ => return None,
    })
}
