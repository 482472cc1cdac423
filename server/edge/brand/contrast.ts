/**
 * WCAG 2.x contrast, as the Recommendation defines it: relative luminance
 * from sRGB, then (lighter + 0.05) / (darker + 0.05). Colours are `#rgb` or
 * `#rrggbb`, the forms the brand settings accept.
 */

/** WCAG AA's minimum for normal text, which buttons and links are held to. */
export const WCAG_AA_TEXT_CONTRAST = 4.5

const HEX_COLOUR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i

/** Whether `value` is a `#rgb` or `#rrggbb` colour. */
export function isHexColour (value: string): boolean {
  return HEX_COLOUR.test(value)
}

/** `#rgb` or `#rrggbb` as lower-case `#rrggbb`; throws on anything else. */
export function normalizeHexColour (value: string): string {
  if (!isHexColour(value)) throw new TypeError(`not a #rgb or #rrggbb colour: ${value}`)
  const digits = value.slice(1).toLowerCase()
  return `#${digits.length === 3 ? [...digits].map((digit) => digit + digit).join('') : digits}`
}

function channels (colour: string): [number, number, number] {
  const hex = normalizeHexColour(colour)
  return [1, 3, 5].map((start) => parseInt(hex.slice(start, start + 2), 16)) as [number, number, number]
}

/** WCAG 2.x relative luminance, 0 (black) to 1 (white). */
export function relativeLuminance (colour: string): number {
  const [red, green, blue] = channels(colour).map((channel) => {
    const value = channel / 255
    // 0.04045 is sRGB's own threshold; WCAG 2.0's text says 0.03928, which gives the same result for 8-bit values.
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * red + 0.7152 * green + 0.0722 * blue
}

/** The contrast ratio of two colours, 1 to 21, whichever is lighter. */
export function contrastRatio (first: string, second: string): number {
  const [lighter, darker] = [relativeLuminance(first), relativeLuminance(second)].sort((a, b) => b - a) as [number, number]
  return (lighter + 0.05) / (darker + 0.05)
}

/**
 * A ratio as people quote it: rounded down to two decimals, so that a pair
 * just short of 4.5:1 never reads as passing ("4.49:1", not "4.5:1").
 */
export function formatRatio (ratio: number): string {
  return `${(Math.floor(ratio * 100) / 100).toFixed(2).replace(/\.?0+$/, '')}:1`
}

/**
 * `colour` mixed towards `target` by `amount` (0: as it is, 1: the target),
 * channel by channel in sRGB, as `#rrggbb`.
 */
export function mixColours (colour: string, target: string, amount: number): string {
  const from = channels(colour)
  const to = channels(target)
  return `#${from.map((channel, index) => Math.round(channel + (to[index]! - channel) * amount).toString(16).padStart(2, '0')).join('')}`
}
