import { createHash } from 'node:crypto'
import { closeSync, fstatSync, openSync, readFileSync, statSync } from 'node:fs'
import { extname, resolve } from 'node:path'
import { imageSize } from 'image-size'
import { ConfigError } from '../../shared/env-parsing.js'

/** The image formats an operator's files may be, by the type image-size detects from the bytes. */
const IMAGE_FORMATS = {
  png: { contentType: 'image/png', extensions: ['.png'], label: 'PNG' },
  jpg: { contentType: 'image/jpeg', extensions: ['.jpg', '.jpeg'], label: 'JPEG' },
  webp: { contentType: 'image/webp', extensions: ['.webp'], label: 'WebP' },
  gif: { contentType: 'image/gif', extensions: ['.gif'], label: 'GIF' },
  svg: { contentType: 'image/svg+xml', extensions: ['.svg'], label: 'SVG' },
  ico: { contentType: 'image/x-icon', extensions: ['.ico'], label: 'ICO' }
} as const

type ImageFormat = keyof typeof IMAGE_FORMATS

const VIDEO_FORMATS = {
  mp4: { contentType: 'video/mp4', extensions: ['.mp4'], label: 'MP4' },
  webm: { contentType: 'video/webm', extensions: ['.webm'], label: 'WebM' }
} as const

type VideoFormat = keyof typeof VIDEO_FORMATS

/** An operator's file, checked at start: what the edge serves and the page names. */
export interface BrandFile {
  /** Absolute path of the file on disk. */
  readonly path: string
  /** The format detected from the file's bytes (never from its name alone). */
  readonly format: ImageFormat | VideoFormat
  readonly contentType: string
  readonly bytes: number
  /** SHA-256 of the content, base64url: the served name carries its start, so a changed file is a new URL. */
  readonly sha256: string
  /** Size, modification time and inode of the file whose bytes were checked (the same open file): a video streamed later is compared with them. */
  readonly identity: FileIdentity
  /** Pixel size (an SVG's from its width and height, else its viewBox); 0 for a video. */
  readonly width: number
  readonly height: number
}

/** What identifies a file's version on disk without reading it again. */
export interface FileIdentity {
  readonly size: number
  readonly mtimeMs: number
  readonly ino: number
}

/** What a setting accepts: formats and bounds. */
export interface ImageRule {
  readonly formats: readonly ImageFormat[]
  readonly maxBytes: number
  /** The largest width and height, each, in pixels. */
  readonly maxPixels: number
}

export interface VideoRule {
  readonly formats: readonly VideoFormat[]
  readonly maxBytes: number
}

function sizeLabel (bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MiB` : `${Math.ceil(bytes / 1024)} KiB`
}

function formatList (labels: readonly string[]): string {
  return labels.length === 1 ? labels[0]! : `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)!}`
}

/** The file's bytes, refused with a message naming the setting when it is missing, not a file, unreadable or too large. */
function readBoundedFile (variable: string, raw: string, maxBytes: number): { path: string, content: Buffer, identity: FileIdentity } {
  const path = resolve(raw)
  let size: number
  try {
    const info = statSync(path)
    if (!info.isFile()) throw new ConfigError(variable, 'must name a file, not a folder or device', raw)
    size = info.size
  } catch (error) {
    if (error instanceof ConfigError) throw error
    const code = (error as NodeJS.ErrnoException).code
    throw new ConfigError(variable, code === 'ENOENT' ? 'names a file that does not exist' : `names a file that cannot be read (${code ?? 'error'})`, raw)
  }
  // Checked before reading, so that a wrong path to a huge file costs no memory.
  if (size > maxBytes) throw new ConfigError(variable, `is ${sizeLabel(size)}, larger than the ${sizeLabel(maxBytes)} allowed`, raw)
  if (size === 0) throw new ConfigError(variable, 'names an empty file', raw)
  try {
    // One open file for both: the identity is that of the bytes read, not of a file swapped in between.
    const fd = openSync(path, 'r')
    try {
      const { size: openSize, mtimeMs, ino } = fstatSync(fd)
      return { path, content: readFileSync(fd), identity: { size: openSize, mtimeMs, ino } }
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    throw new ConfigError(variable, `names a file that cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, raw)
  }
}

function sha256 (content: Buffer): string {
  return createHash('sha256').update(content).digest('base64url')
}

/**
 * Reads and checks an image setting (BRAND_LOGO, FAVICON, BACKGROUND_POSTER):
 * an existing, readable file of at most `rule.maxBytes`, whose bytes are one
 * of `rule.formats` (the header is read, so a text file renamed .png is
 * refused) matching its extension, of a sane pixel size. Throws a
 * {@link ConfigError} naming `variable`.
 */
export function readBrandImage (variable: string, raw: string, rule: ImageRule): BrandFile {
  const { path, content, identity } = readBoundedFile(variable, raw, rule.maxBytes)
  const allowed = formatList(rule.formats.map((format) => IMAGE_FORMATS[format].label))
  let size: { width: number, height: number, type?: string }
  try {
    size = imageSize(content)
  } catch {
    throw new ConfigError(variable, `is not a readable image (expected ${allowed})`, raw)
  }
  const format = rule.formats.find((candidate) => candidate === size.type)
  if (format === undefined) {
    const found = size.type === undefined ? 'an unknown format' : (IMAGE_FORMATS[size.type as ImageFormat]?.label ?? size.type)
    throw new ConfigError(variable, `is ${found}, not ${allowed}`, raw)
  }
  const { extensions, label } = IMAGE_FORMATS[format]
  if (!(extensions as readonly string[]).includes(extname(path).toLowerCase())) {
    throw new ConfigError(variable, `holds ${label} but is named ${extname(path) || 'without an extension'}: rename it ${extensions[0]}, so that what it says it is and what it is agree`, raw)
  }
  const { width, height } = size
  if (!(width >= 1 && height >= 1)) throw new ConfigError(variable, 'has no pixel size (an SVG needs width and height, or a viewBox)', raw)
  if (width > rule.maxPixels || height > rule.maxPixels) {
    throw new ConfigError(variable, `is ${width}×${height} pixels; at most ${rule.maxPixels}×${rule.maxPixels} is allowed`, raw)
  }
  return { path, format, contentType: IMAGE_FORMATS[format].contentType, bytes: content.length, sha256: sha256(content), identity, width, height }
}

/** The container a video's first bytes declare: ISO BMFF (`ftyp` box first) or Matroska/WebM (EBML magic). */
function videoFormatOf (content: Buffer): VideoFormat | null {
  if (content.length >= 12 && content.toString('latin1', 4, 8) === 'ftyp') return 'mp4'
  if (content.length >= 4 && content.readUInt32BE(0) === 0x1a45dfa3) return 'webm'
  return null
}

/**
 * Reads and checks BACKGROUND_VIDEO: an MP4 or WebM file (by its first bytes,
 * matching its extension) of at most `rule.maxBytes`. The edge streams it from
 * disk with Range support, as video players need.
 */
export function readBrandVideo (variable: string, raw: string, rule: VideoRule): BrandFile {
  const { path, content, identity } = readBoundedFile(variable, raw, rule.maxBytes)
  const allowed = formatList(rule.formats.map((format) => VIDEO_FORMATS[format].label))
  const detected = videoFormatOf(content)
  const format = rule.formats.find((candidate) => candidate === detected)
  if (format === undefined) throw new ConfigError(variable, `is not a video (expected ${allowed})`, raw)
  const { extensions, label } = VIDEO_FORMATS[format]
  if (!(extensions as readonly string[]).includes(extname(path).toLowerCase())) {
    throw new ConfigError(variable, `holds ${label} but is named ${extname(path) || 'without an extension'}: rename it ${extensions[0]}`, raw)
  }
  return { path, format, contentType: VIDEO_FORMATS[format].contentType, bytes: content.length, sha256: sha256(content), identity, width: 0, height: 0 }
}

/** The extension a served file carries: its detected format's, whatever the operator named it. */
export function servedExtension (file: BrandFile): string {
  return (file.format in IMAGE_FORMATS ? IMAGE_FORMATS[file.format as ImageFormat] : VIDEO_FORMATS[file.format as VideoFormat]).extensions[0]
}
