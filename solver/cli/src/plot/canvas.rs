//! An RGB pixel buffer, its PNG encoding, and where a figure put its data.
use super::PlotError;
use fdtd_core::atomic_file;
use std::path::{Path, PathBuf};

/// An RGB image, rows top to bottom.
#[derive(Clone, Debug)]
pub struct Canvas {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
}

impl Canvas {
    pub fn new(width: u32, height: u32) -> Canvas {
        Canvas {
            width,
            height,
            rgb: vec![255; width as usize * height as usize * 3],
        }
    }

    /// The colour at `(x, y)`, None outside.
    pub fn pixel(&self, x: i32, y: i32) -> Option<[u8; 3]> {
        if x < 0 || y < 0 || x >= self.width as i32 || y >= self.height as i32 {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 3;
        Some([self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]])
    }

    /// Write as an 8-bit RGB PNG (through [`NewFile`]: never through a link at `path`).
    pub fn save_png(&self, path: &Path) -> Result<(), PlotError> {
        let mut out = NewFile::create(path)?;
        self.encode_png(out.writer()?, path)?;
        out.commit(path)
    }

    fn encode_png(&self, file: std::fs::File, path: &Path) -> Result<(), PlotError> {
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), self.width, self.height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let encode = |e: png::EncodingError| PlotError::Encode {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let mut w = enc.write_header().map_err(encode)?;
        w.write_image_data(&self.rgb).map_err(encode)?;
        w.finish().map_err(encode)
    }

    /// Read an 8-bit RGB or RGBA PNG (tests check figures with it).
    pub fn load_png(path: &Path) -> Result<Canvas, PlotError> {
        let file = std::fs::File::open(path).map_err(|source| PlotError::Write {
            path: path.to_path_buf(),
            source,
        })?;
        let decode = |e: png::DecodingError| PlotError::Encode {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let mut r = png::Decoder::new(std::io::BufReader::new(file))
            .read_info()
            .map_err(decode)?;
        let mut buf = vec![0; r.output_buffer_size().unwrap_or(0)];
        let info = r.next_frame(&mut buf).map_err(decode)?;
        let ch = match info.color_type {
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => {
                return Err(PlotError::Encode {
                    path: path.to_path_buf(),
                    message: format!("colour type {other:?} is not RGB"),
                })
            }
        };
        let rgb = buf[..info.buffer_size()]
            .chunks(ch)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        Ok(Canvas {
            width: info.width,
            height: info.height,
            rgb,
        })
    }
}

/// A figure file being written: [`fdtd_core::atomic_file::NewFile`] (a fresh temporary
/// beside `path`, never a link followed, renamed over `path` once complete, removed if
/// dropped), with the figure's errors.
pub(crate) struct NewFile(atomic_file::NewFile);

impl NewFile {
    pub(crate) fn create(path: &Path) -> Result<NewFile, PlotError> {
        atomic_file::NewFile::create(path)
            .map(NewFile)
            .map_err(|source| PlotError::Write {
                path: path.to_path_buf(),
                source,
            })
    }

    /// The open temporary file (a handle of it).
    pub(crate) fn writer(&mut self) -> Result<std::fs::File, PlotError> {
        let tmp = self.0.temp().to_path_buf();
        let f = self
            .0
            .file()
            .ok_or_else(|| PlotError::Data("the figure file is closed".into()))?;
        f.try_clone().map_err(|source| PlotError::Write { path: tmp, source })
    }

    /// Rename the finished file over `path`.
    pub(crate) fn commit(self, path: &Path) -> Result<(), PlotError> {
        self.0.commit().map_err(|source| PlotError::Write {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// Where a chart's data coordinates land in pixels: `x.0 → px.0`, `x.1 → px.1`,
/// `y.0 → py.0`, `y.1 → py.1` (linear in between; y grows downwards in pixels).
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// What the panel shows (`Ez`, `spectrum`, `xz`).
    pub name: String,
    pub x: (f64, f64),
    pub y: (f64, f64),
    pub px: (i32, i32),
    pub py: (i32, i32),
}

impl Panel {
    /// The pixel of data point `(x, y)`.
    pub fn pixel(&self, x: f64, y: f64) -> (i32, i32) {
        let lerp = |v: f64, (a, b): (f64, f64), (pa, pb): (i32, i32)| {
            (pa as f64 + (v - a) / (b - a) * (pb - pa) as f64).round() as i32
        };
        (lerp(x, self.x, self.px), lerp(y, self.y, self.py))
    }
}

/// A figure written to disk.
#[derive(Clone, Debug)]
pub struct Figure {
    pub path: PathBuf,
    pub width: u32,
    pub height: u32,
    pub panels: Vec<Panel>,
}
