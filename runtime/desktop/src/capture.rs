//! Screenshots: the screen's pixels read with one `GetImage`, the cursor drawn in
//! from XFIXES when asked, scaled, and encoded as PNG, JPEG or lossless WebP.

use std::io::Cursor;

use agentplex_api::DesktopScreenshotFormat;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use image::codecs::webp::WebPEncoder;
use image::imageops::{self, FilterType};
use image::{ExtendedColorType, ImageEncoder, RgbImage};
use x11rb::protocol::xfixes::ConnectionExt as _;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat};

use crate::screen::{x11, PixelLayout, Screen};
use crate::DesktopError;

/// A rectangle of the screen, inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width, at least 1.
    pub width: u32,
    /// Height, at least 1.
    pub height: u32,
}

/// How a screenshot is encoded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Encoding {
    /// The image format.
    pub format: DesktopScreenshotFormat,
    /// JPEG quality, 1 to 100.
    pub quality: u8,
    /// Scale factor, above 0 and at most 1.
    pub scale: f32,
}

impl Screen {
    /// The pixels of `region`, with the cursor drawn in when `cursor` is set.
    pub fn capture(&self, region: Region, cursor: bool) -> Result<RgbImage, DesktopError> {
        let reply = self
            .conn
            .get_image(
                ImageFormat::Z_PIXMAP,
                self.root,
                region.x as i16,
                region.y as i16,
                region.width as u16,
                region.height as u16,
                !0,
            )
            .map_err(x11)?
            .reply()
            .map_err(x11)?;
        let mut image = to_rgb(&reply.data, region, self.pixels)?;
        if cursor {
            self.draw_cursor(&mut image, region)?;
        }
        Ok(image)
    }

    fn draw_cursor(&self, image: &mut RgbImage, region: Region) -> Result<(), DesktopError> {
        self.conn
            .xfixes_query_version(5, 0)
            .map_err(x11)?
            .reply()
            .map_err(x11)?;
        let cursor = self
            .conn
            .xfixes_get_cursor_image()
            .map_err(x11)?
            .reply()
            .map_err(x11)?;
        let left = i64::from(cursor.x) - i64::from(cursor.xhot) - i64::from(region.x);
        let top = i64::from(cursor.y) - i64::from(cursor.yhot) - i64::from(region.y);
        let width = usize::from(cursor.width);
        for (index, &argb) in cursor.cursor_image.iter().enumerate() {
            let x = left + (index % width.max(1)) as i64;
            let y = top + (index / width.max(1)) as i64;
            if x < 0 || y < 0 || x >= i64::from(image.width()) || y >= i64::from(image.height()) {
                continue;
            }
            let alpha = argb >> 24;
            let pixel = image.get_pixel_mut(x as u32, y as u32);
            // The cursor's colours are premultiplied by its alpha.
            for (channel, shift) in pixel.0.iter_mut().zip([16, 8, 0]) {
                let over = (argb >> shift) & 0xff;
                *channel = (over + u32::from(*channel) * (255 - alpha) / 255).min(255) as u8;
            }
        }
        Ok(())
    }
}

/// The X server's image of `region` as RGB.
fn to_rgb(data: &[u8], region: Region, layout: PixelLayout) -> Result<RgbImage, DesktopError> {
    let (width, height) = (region.width as usize, region.height as usize);
    let stride = data.len() / height.max(1);
    if stride < width * layout.bytes {
        return Err(DesktopError::X11(format!(
            "the X server sent {} bytes for a {width}x{height} image",
            data.len()
        )));
    }
    let channel = |value: u32, mask: u32| ((value & mask) >> mask.trailing_zeros()) as u8;
    let mut rgb = Vec::with_capacity(width * height * 3);
    for row in data.chunks_exact(stride).take(height) {
        for pixel in row[..width * layout.bytes].chunks_exact(layout.bytes) {
            let mut bytes = [0u8; 4];
            bytes[..layout.bytes].copy_from_slice(pixel);
            let value = if layout.lsb_first {
                u32::from_le_bytes(bytes)
            } else {
                u32::from_be_bytes(bytes) >> (8 * (4 - layout.bytes))
            };
            rgb.extend([
                channel(value, layout.red),
                channel(value, layout.green),
                channel(value, layout.blue),
            ]);
        }
    }
    RgbImage::from_raw(region.width, region.height, rgb)
        .ok_or_else(|| DesktopError::X11("the screen's image has the wrong size".into()))
}

/// Scales and encodes an image; answers the bytes and their media type.
pub fn encode(
    image: RgbImage,
    encoding: Encoding,
) -> Result<(Vec<u8>, &'static str), DesktopError> {
    let image = if encoding.scale < 1.0 {
        let width = ((image.width() as f32 * encoding.scale).round() as u32).max(1);
        let height = ((image.height() as f32 * encoding.scale).round() as u32).max(1);
        imageops::resize(&image, width, height, FilterType::Triangle)
    } else {
        image
    };
    let (width, height) = image.dimensions();
    let mut out = Cursor::new(Vec::new());
    let failed = |error: image::ImageError| {
        DesktopError::X11(format!("encoding the screenshot failed: {error}"))
    };
    let media_type = match encoding.format {
        DesktopScreenshotFormat::Png => {
            PngEncoder::new_with_quality(&mut out, CompressionType::Fast, PngFilter::Adaptive)
                .write_image(&image, width, height, ExtendedColorType::Rgb8)
                .map_err(failed)?;
            "image/png"
        }
        DesktopScreenshotFormat::Jpeg => {
            JpegEncoder::new_with_quality(&mut out, encoding.quality)
                .write_image(&image, width, height, ExtendedColorType::Rgb8)
                .map_err(failed)?;
            "image/jpeg"
        }
        DesktopScreenshotFormat::Webp => {
            WebPEncoder::new_lossless(&mut out)
                .write_image(&image, width, height, ExtendedColorType::Rgb8)
                .map_err(failed)?;
            "image/webp"
        }
    };
    Ok((out.into_inner(), media_type))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_of_a_32_bit_lsb_screen_become_rgb() {
        let layout = PixelLayout {
            bytes: 4,
            lsb_first: true,
            red: 0xff0000,
            green: 0xff00,
            blue: 0xff,
        };
        // Two pixels, BGRX in memory: red, then blue.
        let data = [0, 0, 255, 0, 255, 0, 0, 0];
        let region = Region {
            x: 0,
            y: 0,
            width: 2,
            height: 1,
        };
        let image = to_rgb(&data, region, layout).unwrap();
        assert_eq!(image.as_raw(), &vec![255, 0, 0, 0, 0, 255]);
        assert!(to_rgb(&data[..4], region, layout).is_err());
    }

    #[test]
    fn encodings_decode_to_the_scaled_size() {
        let image = RgbImage::from_pixel(40, 20, image::Rgb([10, 200, 30]));
        for format in [
            DesktopScreenshotFormat::Png,
            DesktopScreenshotFormat::Jpeg,
            DesktopScreenshotFormat::Webp,
        ] {
            let encoding = Encoding {
                format,
                quality: 90,
                scale: 0.5,
            };
            let (bytes, _) = encode(image.clone(), encoding).unwrap();
            let decoded = image::load_from_memory(&bytes).unwrap();
            assert_eq!((decoded.width(), decoded.height()), (20, 10), "{format:?}");
        }
    }
}
