/**
 * gRPC-web framing: each frame is one flag byte (0x00 a message, 0x80
 * trailers; bit 0x01 compression), a 4-byte big-endian length, and the bytes.
 * The text variant is the same bytes in base64.
 */

export const DATA_FRAME = 0x00
export const TRAILER_FRAME = 0x80
const COMPRESSED_FLAG = 0x01
const HEADER_BYTES = 5

export interface Frame {
  readonly flag: number
  readonly payload: Buffer
}

export class MalformedFramesError extends Error {
  readonly code = 'GRPC_WEB_MALFORMED_FRAMES'
}

export function encodeFrame (flag: number, payload: Uint8Array): Buffer {
  const frame = Buffer.alloc(HEADER_BYTES + payload.length)
  frame[0] = flag
  frame.writeUInt32BE(payload.length, 1)
  frame.set(payload, HEADER_BYTES)
  return frame
}

/** The trailer frame carrying a call's status. */
export function encodeTrailers (grpcStatus: number, message = ''): Buffer {
  return encodeFrame(TRAILER_FRAME, Buffer.from(`grpc-status:${grpcStatus}\r\ngrpc-message:${encodeURIComponent(message)}\r\n`))
}

/** Splits a body into frames; any truncation or trailing garbage is an error. */
export function decodeFrames (body: Buffer): Frame[] {
  const frames: Frame[] = []
  let offset = 0
  while (offset < body.length) {
    if (body.length - offset < HEADER_BYTES) throw new MalformedFramesError('truncated frame header')
    const flag = body[offset]!
    const length = body.readUInt32BE(offset + 1)
    if (length > body.length - offset - HEADER_BYTES) throw new MalformedFramesError('frame longer than the body')
    frames.push({ flag, payload: body.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length) })
    offset += HEADER_BYTES + length
  }
  return frames
}

export function isCompressed (frame: Frame): boolean {
  return (frame.flag & COMPRESSED_FLAG) !== 0
}

/**
 * Decodes grpc-web-text: base64, possibly several padded chunks one after the
 * other (a streaming client may send them so). Anything not base64 is an error.
 */
export function decodeBase64Chunks (text: string): Buffer {
  const compact = text.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/=]*$/.test(compact)) throw new MalformedFramesError('not base64')
  const chunks = compact.match(/[A-Za-z0-9+/]*={0,2}/g)?.filter((chunk) => chunk !== '') ?? []
  return Buffer.concat(chunks.map((chunk) => {
    if (chunk.length % 4 === 1) throw new MalformedFramesError('not base64')
    return Buffer.from(chunk, 'base64')
  }))
}
