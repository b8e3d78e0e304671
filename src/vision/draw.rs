//! Drawing primitives for overlays and the simulator (imageproc style: the
//! `_mut` functions write into an `&mut RgbImage`).
//!
//! Coordinates: window pixels, `i32` so shapes may start off-picture; every
//! function clips to the picture, so nothing here panics on any input.
//! Text uses a built-in 3x5 pixel font (digits, `A`-`Z`, `? . : -`), scaled by
//! an integer factor.

use image::{Rgb, RgbImage};

/// Writes one pixel if it is inside the picture.
#[inline]
pub fn put_pixel_mut(img: &mut RgbImage, x: i32, y: i32, c: [u8; 3]) {
    if x >= 0 && y >= 0 && (x as u32) < img.width() && (y as u32) < img.height() {
        img.put_pixel(x as u32, y as u32, Rgb(c));
    }
}

/// Mixes `c` into one pixel with weight `alpha` (0..=1), if inside.
#[inline]
pub fn blend_pixel_mut(img: &mut RgbImage, x: i32, y: i32, c: [u8; 3], alpha: f32) {
    if x >= 0 && y >= 0 && (x as u32) < img.width() && (y as u32) < img.height() {
        let p = img.get_pixel_mut(x as u32, y as u32);
        let a = alpha.clamp(0.0, 1.0);
        for (ch, &to) in p.0.iter_mut().zip(&c) {
            *ch = (*ch as f32 * (1.0 - a) + to as f32 * a).round() as u8;
        }
    }
}

/// Fills a rectangle (clipped).
pub fn draw_filled_rect_mut(img: &mut RgbImage, x: i32, y: i32, w: i32, h: i32, c: [u8; 3]) {
    let x0 = x.max(0);
    let y0 = y.max(0);
    let x1 = (x.saturating_add(w)).min(img.width() as i32);
    let y1 = (y.saturating_add(h)).min(img.height() as i32);
    for yy in y0..y1 {
        for xx in x0..x1 {
            img.put_pixel(xx as u32, yy as u32, Rgb(c));
        }
    }
}

/// Draws the one-pixel outline of a rectangle (clipped).
pub fn draw_hollow_rect_mut(img: &mut RgbImage, x: i32, y: i32, w: i32, h: i32, c: [u8; 3]) {
    if w <= 0 || h <= 0 {
        return;
    }
    for xx in x..x + w {
        put_pixel_mut(img, xx, y, c);
        put_pixel_mut(img, xx, y + h - 1, c);
    }
    for yy in y..y + h {
        put_pixel_mut(img, x, yy, c);
        put_pixel_mut(img, x + w - 1, yy, c);
    }
}

/// Draws a straight line with Bresenham's algorithm (clipped per pixel).
pub fn draw_line_mut(img: &mut RgbImage, from: (i32, i32), to: (i32, i32), c: [u8; 3]) {
    let (mut x, mut y) = from;
    let dx = (to.0 - x).abs();
    let dy = -(to.1 - y).abs();
    let sx = if x < to.0 { 1 } else { -1 };
    let sy = if y < to.1 { 1 } else { -1 };
    let mut err = dx + dy;
    // Bounded: a line visits at most dx - dy + 1 pixels.
    for _ in 0..=(dx - dy) {
        put_pixel_mut(img, x, y, c);
        if (x, y) == to {
            break;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            x += sx;
        }
        if e2 <= dx {
            err += dx;
            y += sy;
        }
    }
}

/// Glyph rows (3 bits each, MSB left) of the 3x5 font.
fn glyph(ch: char) -> Option<[u8; 5]> {
    let g = match ch.to_ascii_uppercase() {
        '0' => [0b111, 0b101, 0b101, 0b101, 0b111],
        '1' => [0b010, 0b110, 0b010, 0b010, 0b111],
        '2' => [0b111, 0b001, 0b111, 0b100, 0b111],
        '3' => [0b111, 0b001, 0b111, 0b001, 0b111],
        '4' => [0b101, 0b101, 0b111, 0b001, 0b001],
        '5' => [0b111, 0b100, 0b111, 0b001, 0b111],
        '6' => [0b111, 0b100, 0b111, 0b101, 0b111],
        '7' => [0b111, 0b001, 0b001, 0b001, 0b001],
        '8' => [0b111, 0b101, 0b111, 0b101, 0b111],
        '9' => [0b111, 0b101, 0b111, 0b001, 0b111],
        '?' => [0b111, 0b001, 0b011, 0b000, 0b010],
        '.' => [0b000, 0b000, 0b000, 0b000, 0b010],
        ':' => [0b000, 0b010, 0b000, 0b010, 0b000],
        '-' => [0b000, 0b000, 0b111, 0b000, 0b000],
        ' ' => [0; 5],
        'A' => [0b010, 0b101, 0b111, 0b101, 0b101],
        'B' => [0b110, 0b101, 0b110, 0b101, 0b110],
        'C' => [0b011, 0b100, 0b100, 0b100, 0b011],
        'D' => [0b110, 0b101, 0b101, 0b101, 0b110],
        'E' => [0b111, 0b100, 0b110, 0b100, 0b111],
        'F' => [0b111, 0b100, 0b110, 0b100, 0b100],
        'G' => [0b011, 0b100, 0b101, 0b101, 0b011],
        'H' => [0b101, 0b101, 0b111, 0b101, 0b101],
        'I' => [0b111, 0b010, 0b010, 0b010, 0b111],
        'J' => [0b001, 0b001, 0b001, 0b101, 0b010],
        'K' => [0b101, 0b110, 0b100, 0b110, 0b101],
        'L' => [0b100, 0b100, 0b100, 0b100, 0b111],
        'M' => [0b101, 0b111, 0b111, 0b101, 0b101],
        'N' => [0b110, 0b101, 0b101, 0b101, 0b101],
        'O' => [0b010, 0b101, 0b101, 0b101, 0b010],
        'P' => [0b110, 0b101, 0b110, 0b100, 0b100],
        'Q' => [0b010, 0b101, 0b101, 0b110, 0b011],
        'R' => [0b110, 0b101, 0b110, 0b101, 0b101],
        'S' => [0b011, 0b100, 0b010, 0b001, 0b110],
        'T' => [0b111, 0b010, 0b010, 0b010, 0b010],
        'U' => [0b101, 0b101, 0b101, 0b101, 0b111],
        'V' => [0b101, 0b101, 0b101, 0b101, 0b010],
        'W' => [0b101, 0b101, 0b111, 0b111, 0b101],
        'X' => [0b101, 0b101, 0b010, 0b101, 0b101],
        'Y' => [0b101, 0b101, 0b010, 0b010, 0b010],
        'Z' => [0b111, 0b001, 0b010, 0b100, 0b111],
        _ => return None,
    };
    Some(g)
}

/// Width in pixels of `text` drawn at `scale`.
pub fn text_width(text: &str, scale: i32) -> i32 {
    let n = text.chars().count() as i32;
    if n == 0 {
        0
    } else {
        (4 * n - 1) * scale
    }
}

/// Draws `text` with its top-left corner at `(x, y)`; each font pixel is a
/// `scale` x `scale` square. Unknown characters draw as a hollow box.
pub fn draw_text_mut(img: &mut RgbImage, x: i32, y: i32, scale: i32, c: [u8; 3], text: &str) {
    let scale = scale.max(1);
    for (i, ch) in text.chars().enumerate() {
        let gx = x + i as i32 * 4 * scale;
        match glyph(ch) {
            Some(rows) => {
                for (ry, bits) in rows.iter().enumerate() {
                    for rx in 0..3 {
                        if bits & (0b100 >> rx) != 0 {
                            draw_filled_rect_mut(
                                img,
                                gx + rx * scale,
                                y + ry as i32 * scale,
                                scale,
                                scale,
                                c,
                            );
                        }
                    }
                }
            }
            None => draw_hollow_rect_mut(img, gx, y, 3 * scale, 5 * scale, c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_instead_of_panicking() {
        let mut img = RgbImage::new(10, 10);
        draw_filled_rect_mut(&mut img, -5, -5, 100, 100, [1, 2, 3]);
        draw_hollow_rect_mut(&mut img, -5, 8, 30, 30, [9, 9, 9]);
        draw_line_mut(&mut img, (-20, -3), (40, 25), [7, 7, 7]);
        draw_text_mut(&mut img, 8, 8, 3, [5, 5, 5], "0?~");
        assert_eq!(img.get_pixel(0, 0).0, [1, 2, 3]);
        assert_eq!(img.get_pixel(0, 8).0, [9, 9, 9]);
    }

    #[test]
    fn text_draws_the_glyph() {
        let mut img = RgbImage::new(3, 5);
        draw_text_mut(&mut img, 0, 0, 1, [255, 255, 255], "1");
        let lit: Vec<u8> = (0..5)
            .map(|y| (0..3).fold(0, |a, x| a << 1 | (img.get_pixel(x, y).0[0] > 0) as u8))
            .collect();
        assert_eq!(lit, vec![0b010, 0b110, 0b010, 0b010, 0b111]);
        assert_eq!(text_width("12", 2), 14);
    }
}
