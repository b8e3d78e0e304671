//! Fixture platform: recorded screenshots played back as frames.
//!
//! [`load_png`] reads one picture (any format the `image` crate was built with;
//! fixtures are PNG) into an [`RgbImage`], with a one-line error naming the
//! file. [`DirFrames`] is a [`FrameSource`] over the `*.png` files of one
//! directory in byte-wise sorted name order; each frame's rect is at (0, 0)
//! with the image's size (a fixture has no screen position), and after the
//! last file every grab returns [`PlatformError::Exhausted`].

use std::path::{Path, PathBuf};

use image::RgbImage;

use super::{Frame, FrameSource, PlatformError, Rect};

fn file_err(path: &Path, reason: impl Into<String>) -> PlatformError {
    PlatformError::File {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

/// A one-line error for a failed file operation: `missing` when the path is
/// not there, else `doing: the OS error`.
fn io_err(path: &Path, e: &std::io::Error, missing: &str, doing: &str) -> PlatformError {
    let reason = match e.kind() {
        std::io::ErrorKind::NotFound => missing.to_string(),
        _ => format!("{doing}: {e}"),
    };
    file_err(path, reason)
}

/// Reads a picture file as RGB. Errors say which file and why, on one line.
pub fn load_png(path: &Path) -> Result<RgbImage, PlatformError> {
    let bytes = std::fs::read(path).map_err(|e| io_err(path, &e, "no such file", "cannot read"))?;
    let img = image::load_from_memory(&bytes).map_err(|e| {
        let msg = e.to_string().replace('\n', " ");
        file_err(path, format!("not an image: {msg}"))
    })?;
    Ok(img.into_rgb8())
}

/// The sorted `*.png` files of a directory, played back one per grab.
#[derive(Debug, Clone)]
pub struct DirFrames {
    files: Vec<PathBuf>,
    next: usize,
}

impl DirFrames {
    /// Lists `dir`'s `*.png` files (extension in any case), sorted by name.
    pub fn new(dir: &Path) -> Result<Self, PlatformError> {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| io_err(dir, &e, "no such directory", "cannot list"))?;
        let mut files = Vec::new();
        for entry in entries {
            let path = entry
                .map_err(|e| file_err(dir, format!("cannot list: {e}")))?
                .path();
            let is_png = path
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| x.eq_ignore_ascii_case("png"));
            if is_png && path.is_file() {
                files.push(path);
            }
        }
        files.sort();
        Ok(DirFrames { files, next: 0 })
    }

    /// The files, in playback order.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// How many frames are left.
    pub fn remaining(&self) -> usize {
        self.files.len() - self.next
    }

    /// The file the last successful grab came from.
    pub fn current(&self) -> Option<&Path> {
        self.next
            .checked_sub(1)
            .and_then(|i| self.files.get(i))
            .map(PathBuf::as_path)
    }
}

impl FrameSource for DirFrames {
    fn grab(&mut self) -> Result<Frame, PlatformError> {
        let Some(path) = self.files.get(self.next) else {
            return Err(PlatformError::Exhausted);
        };
        let image = load_png(path)?;
        self.next += 1;
        let rect = Rect {
            x: 0,
            y: 0,
            w: image.width(),
            h: image.height(),
        };
        Ok(Frame { image, rect })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh scratch directory under the system temp dir.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "gridbot-fixture-test-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    fn write_png(path: &Path, w: u32, h: u32, v: u8) {
        RgbImage::from_pixel(w, h, image::Rgb([v, v, v]))
            .save(path)
            .expect("write png");
    }

    #[test]
    fn plays_pngs_in_name_order_then_exhausts() {
        let dir = scratch("order");
        write_png(&dir.join("b.png"), 3, 2, 20);
        write_png(&dir.join("a.png"), 2, 1, 10);
        write_png(&dir.join("c.PNG"), 1, 1, 30);
        std::fs::write(dir.join("a.txt"), "none\n").expect("txt");
        std::fs::create_dir(dir.join("d.png")).expect("dir named like a png");

        let mut frames = DirFrames::new(&dir).expect("list");
        assert_eq!(frames.remaining(), 3);
        let mut seen = Vec::new();
        loop {
            match frames.grab() {
                Ok(f) => {
                    assert_eq!((f.rect.x, f.rect.y), (0, 0));
                    assert_eq!((f.rect.w, f.rect.h), f.image.dimensions());
                    seen.push((f.image.get_pixel(0, 0)[0], f.rect.w, f.rect.h));
                }
                Err(PlatformError::Exhausted) => break,
                Err(e) => panic!("unexpected error {e}"),
            }
        }
        assert_eq!(seen, vec![(10, 2, 1), (20, 3, 2), (30, 1, 1)]);
        assert!(matches!(frames.grab(), Err(PlatformError::Exhausted)));
        assert_eq!(
            frames.current().and_then(|p| p.file_name()),
            Some("c.PNG".as_ref())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn empty_directory_is_exhausted_at_once() {
        let dir = scratch("empty");
        let mut frames = DirFrames::new(&dir).expect("list");
        assert!(matches!(frames.grab(), Err(PlatformError::Exhausted)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn missing_directory_names_it() {
        let base = scratch("gone");
        let dir = base.join("nope");
        let err = DirFrames::new(&dir).map(|_| ()).map_err(|e| e.to_string());
        let _ = std::fs::remove_dir_all(&base);
        let msg = err.expect_err("must fail");
        assert!(
            msg.contains("nope") && msg.contains("no such directory"),
            "{msg}"
        );
    }

    #[test]
    fn load_png_errors_name_the_file_on_one_line() {
        let dir = scratch("errors");
        let missing = dir.join("missing.png");
        let msg = load_png(&missing)
            .map(|_| ())
            .expect_err("missing")
            .to_string();
        assert!(
            msg.contains("missing.png") && msg.contains("no such file"),
            "{msg}"
        );
        assert!(!msg.contains('\n'));

        let junk = dir.join("junk.png");
        std::fs::write(&junk, b"this is not a picture").expect("junk");
        let msg = load_png(&junk).map(|_| ()).expect_err("junk").to_string();
        assert!(
            msg.contains("junk.png") && msg.contains("not an image"),
            "{msg}"
        );
        assert!(!msg.contains('\n'));

        let good = dir.join("good.png");
        write_png(&good, 4, 3, 7);
        let img = load_png(&good).expect("good");
        assert_eq!(img.dimensions(), (4, 3));
        assert_eq!(img.get_pixel(3, 2).0, [7, 7, 7]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_broken_file_stops_playback_with_its_name() {
        let dir = scratch("broken");
        write_png(&dir.join("1.png"), 1, 1, 1);
        std::fs::write(dir.join("2.png"), b"garbage").expect("garbage");
        let mut frames = DirFrames::new(&dir).expect("list");
        assert!(frames.grab().is_ok());
        let msg = frames.grab().map(|_| ()).expect_err("broken").to_string();
        assert!(msg.contains("2.png"), "{msg}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
