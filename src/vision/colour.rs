//! Colour arithmetic for vision: sRGB bytes to CIE Lab (D65) and back, and the
//! colour difference ΔE.
//!
//! Lab values are `[L, a, b]` as `f32` (L in 0..=100). ΔE is CIE76, the
//! Euclidean distance in Lab: cheap, and good enough to tell game tiles apart
//! (a ΔE of about 2.3 is a just-noticeable difference).
//!
//! The forward conversion is on the hot path of the reader, so it uses a
//! 256-entry table for the sRGB transfer function; it agrees with `palette`'s
//! `Srgb -> Lab<D65>` to within 0.01 (checked in the tests).

use std::sync::OnceLock;

/// A colour in CIE Lab (D65): `[L, a, b]`.
pub type Lab = [f32; 3];

/// D65 reference white (Y normalised to 1).
const WHITE: [f32; 3] = [0.950_47, 1.0, 1.088_83];
/// `(6/29)^3`, the switch point of the Lab companding function.
const EPSILON: f32 = 216.0 / 24389.0;
/// `(29/3)^3 / 116`, the slope of the linear part.
const KAPPA_116: f32 = 24389.0 / 27.0 / 116.0;

fn linear_lut() -> &'static [f32; 256] {
    static LUT: OnceLock<[f32; 256]> = OnceLock::new();
    LUT.get_or_init(|| {
        let mut t = [0f32; 256];
        for (i, v) in t.iter_mut().enumerate() {
            *v = srgb_to_linear(i as f32 / 255.0);
        }
        t
    })
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.040_45 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb(c: f32) -> f32 {
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

#[inline]
fn companding(t: f32) -> f32 {
    if t > EPSILON {
        t.cbrt()
    } else {
        KAPPA_116 * t + 16.0 / 116.0
    }
}

#[inline]
fn companding_inv(f: f32) -> f32 {
    let t = f * f * f;
    if t > EPSILON {
        t
    } else {
        (f - 16.0 / 116.0) / KAPPA_116
    }
}

/// Converts an sRGB pixel to Lab (D65).
#[inline]
pub fn rgb_to_lab(p: [u8; 3]) -> Lab {
    let lut = linear_lut();
    let (r, g, b) = (lut[p[0] as usize], lut[p[1] as usize], lut[p[2] as usize]);
    let x = 0.412_456_4 * r + 0.357_576_1 * g + 0.180_437_5 * b;
    let y = 0.212_672_9 * r + 0.715_152_2 * g + 0.072_175 * b;
    let z = 0.019_333_9 * r + 0.119_192 * g + 0.950_304_1 * b;
    let fx = companding(x / WHITE[0]);
    let fy = companding(y / WHITE[1]);
    let fz = companding(z / WHITE[2]);
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// Converts Lab (D65) to the nearest displayable sRGB pixel (clamped).
pub fn lab_to_rgb(lab: Lab) -> [u8; 3] {
    let fy = (lab[0] + 16.0) / 116.0;
    let fx = fy + lab[1] / 500.0;
    let fz = fy - lab[2] / 200.0;
    let x = companding_inv(fx) * WHITE[0];
    let y = companding_inv(fy) * WHITE[1];
    let z = companding_inv(fz) * WHITE[2];
    let r = 3.240_454_2 * x - 1.537_138_5 * y - 0.498_531_4 * z;
    let g = -0.969_266 * x + 1.876_010_8 * y + 0.041_556 * z;
    let b = 0.055_643_4 * x - 0.204_025_9 * y + 1.057_225_2 * z;
    let to_byte = |c: f32| {
        (linear_to_srgb(c.clamp(0.0, 1.0)) * 255.0)
            .round()
            .clamp(0.0, 255.0) as u8
    };
    [to_byte(r), to_byte(g), to_byte(b)]
}

/// CIE76 colour difference: the Euclidean distance in Lab.
#[inline]
pub fn delta_e(p: Lab, q: Lab) -> f32 {
    let (dl, da, db) = (p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    (dl * dl + da * da + db * db).sqrt()
}

/// Where `p` projects on the way from `from` to `to`: 0 at `from`, 1 at
/// `to` (0 when the two are one colour), and the point it projects to.
pub fn along(p: Lab, from: Lab, to: Lab) -> (f32, Lab) {
    let axis = [to[0] - from[0], to[1] - from[1], to[2] - from[2]];
    let len2: f32 = axis.iter().map(|a| a * a).sum();
    if len2 <= 0.0 {
        return (0.0, from);
    }
    let t = (0..3).map(|i| (p[i] - from[i]) * axis[i]).sum::<f32>() / len2;
    (
        t,
        [
            from[0] + t * axis[0],
            from[1] + t * axis[1],
            from[2] + t * axis[2],
        ],
    )
}

/// Chroma: the distance from the grey axis, `sqrt(a^2 + b^2)`.
#[inline]
pub fn chroma(p: Lab) -> f32 {
    (p[1] * p[1] + p[2] * p[2]).sqrt()
}

/// Component-wise mean of a set of Lab colours (`[0, 0, 0]` for none).
pub fn mean(colours: &[Lab]) -> Lab {
    if colours.is_empty() {
        return [0.0; 3];
    }
    let mut s = [0f32; 3];
    for c in colours {
        for k in 0..3 {
            s[k] += c[k];
        }
    }
    let n = colours.len() as f32;
    [s[0] / n, s[1] / n, s[2] / n]
}

/// Median of a slice (sorts it in place); 0 for an empty slice. For an even
/// count it is the mean of the two middle values.
pub fn median_mut(v: &mut [f32]) -> f32 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_unstable_by(f32::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// A robust centre of a set of samples and how spread they are.
///
/// Method: the component-wise median gives a first centre; the half of the
/// samples closest to it (those within the median distance) are averaged.
/// The spread is that median distance. A symbol or glow covering fewer than
/// half of the samples is thereby ignored.
pub fn robust_centre(samples: &[Lab]) -> (Lab, f32) {
    const MAX: usize = 64;
    let n = samples.len().min(MAX);
    if n == 0 {
        return ([0.0; 3], 0.0);
    }
    let samples = &samples[..n];
    let mut buf = [0f32; MAX];
    let mut med = [0f32; 3];
    for (k, m) in med.iter_mut().enumerate() {
        for (b, s) in buf.iter_mut().zip(samples) {
            *b = s[k];
        }
        *m = median_mut(&mut buf[..n]);
    }
    let mut dist = [0f32; MAX];
    for (d, s) in dist.iter_mut().zip(samples) {
        *d = delta_e(*s, med);
    }
    buf[..n].copy_from_slice(&dist[..n]);
    let spread = median_mut(&mut buf[..n]);
    let mut sum = [0f32; 3];
    let mut count = 0f32;
    for (s, d) in samples.iter().zip(&dist[..n]) {
        if *d <= spread {
            for k in 0..3 {
                sum[k] += s[k];
            }
            count += 1.0;
        }
    }
    if count == 0.0 {
        return (med, spread);
    }
    ([sum[0] / count, sum[1] / count, sum[2] / count], spread)
}

#[cfg(test)]
mod tests {
    use super::*;
    use palette::{IntoColor, Lab as PLab, Srgb};

    #[test]
    fn matches_palette() {
        for &p in &[
            [0u8, 0, 0],
            [255, 255, 255],
            [239, 41, 41],
            [10, 200, 30],
            [52, 101, 164],
            [128, 128, 128],
            [3, 2, 1],
        ] {
            let ours = rgb_to_lab(p);
            let theirs: PLab = Srgb::new(p[0], p[1], p[2])
                .into_format::<f32>()
                .into_linear()
                .into_color();
            let theirs = [theirs.l, theirs.a, theirs.b];
            assert!(
                delta_e(ours, theirs) < 0.01,
                "{p:?}: ours {ours:?} palette {theirs:?}"
            );
        }
    }

    #[test]
    fn round_trips() {
        for &p in &[
            [0u8, 0, 0],
            [255, 255, 255],
            [239, 41, 41],
            [10, 200, 30],
            [52, 101, 164],
            [77, 77, 77],
        ] {
            assert_eq!(lab_to_rgb(rgb_to_lab(p)), p);
        }
    }

    #[test]
    fn robust_centre_ignores_a_minority() {
        let red = rgb_to_lab([200, 20, 20]);
        let white = rgb_to_lab([255, 255, 255]);
        let mut s = vec![red; 10];
        s.extend([white; 4]);
        let (c, spread) = robust_centre(&s);
        assert!(delta_e(c, red) < 1e-3);
        assert!(spread < 1e-3);
    }
}
