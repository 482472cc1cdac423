import { encode } from 'uqr'

/** Quiet zone around the code, in modules (ISO/IEC 18004 asks for four). */
const QUIET_ZONE_MODULES = 4
const DRAWN_SIZE_PX = 200

/**
 * The path of the dark modules of `text`'s QR code, one unit square each, in
 * a grid of `size` units with the quiet zone included: drawn on the page, so
 * that the secret never goes to a third-party QR service.
 */
function qrPath (text: string): { readonly path: string, readonly size: number } {
  const { data, size } = encode(text, { ecc: 'M', border: QUIET_ZONE_MODULES })
  let path = ''
  data.forEach((row, y) => row.forEach((dark, x) => {
    if (dark) path += `M${x} ${y}h1v1h-1z`
  }))
  return { path, size }
}

/** The QR code as inline SVG, an image with an accessible name. */
export function QrCode ({ text, label }: { text: string, label: string }) {
  const { path, size } = qrPath(text)
  return (
    <svg className='qr-code' role='img' aria-label={label} width={DRAWN_SIZE_PX} height={DRAWN_SIZE_PX}
      viewBox={`0 0 ${size} ${size}`} shapeRendering='crispEdges'>
      <rect width={size} height={size} fill='#fff' />
      <path d={path} fill='#000' />
    </svg>
  )
}
