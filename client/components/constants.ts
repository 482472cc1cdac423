/**
 * The page's fixed sizes, breakpoints, layers and timings, each defined once. Sizes reach
 * the stylesheet where they can (client/styles.css names the constant beside
 * each value it repeats).
 */

/** Below this window width the form narrows and the mobile video plays. */
export const MOBILE_BREAKPOINT_PX = 512
/** The media query for below MOBILE_BREAKPOINT_PX, as client/styles.css writes it (511.98px: no gap at fractional widths). */
export const MOBILE_MEDIA_QUERY = `(max-width: ${MOBILE_BREAKPOINT_PX - 0.02}px)`
/** Below this window width the two-column layout stacks. */
export const STACKED_BREAKPOINT_PX = 1024
const FORM_CARD_WIDTH_PX = 400
export const GOOGLE_BUTTON_WIDTH_PX = 400

export const MODAL_WIDTHS_PX = Object.freeze({ medium: 450, large: 850, xlarge: 1000 })
const TEXT_FIELD_WIDTH_PX = 200
const TEXT_FIELD_LONG_WIDTH_PX = 500
export const TEXT_FIELD_FINISHED_TYPING_MS = 1000

const TOOLTIP_MAX_WIDTH_PX = 300
export const TOOLTIP_LINGER_MS = 400
export const COPY_FEEDBACK_MS = 1000

const SPINNER_SIZE_PX = 24
const BUTTON_SPINNER_SIZE_PX = 14
export const SPINNER_TURN_MS = 1000

const OVERLAY_LAYER = 999
const TOOLTIP_LAYER = 1001

/**
 * The sizes above as the CSS custom properties the stylesheet reads. They are
 * written out in client/styles.css's `:root` (test/client/components/design-tokens.test.ts
 * holds the two equal): the page is rendered on the server and must be laid
 * out before any script runs.
 */
export const DESIGN_TOKENS: Readonly<Record<string, string>> = Object.freeze({
  '--card-width': `${FORM_CARD_WIDTH_PX}px`,
  '--modal-medium': `${MODAL_WIDTHS_PX.medium}px`,
  '--modal-large': `${MODAL_WIDTHS_PX.large}px`,
  '--modal-xlarge': `${MODAL_WIDTHS_PX.xlarge}px`,
  '--field-width': `${TEXT_FIELD_WIDTH_PX}px`,
  '--field-long-width': `${TEXT_FIELD_LONG_WIDTH_PX}px`,
  '--tooltip-max-width': `${TOOLTIP_MAX_WIDTH_PX}px`,
  '--spinner-size': `${SPINNER_SIZE_PX}px`,
  '--button-spinner-size': `${BUTTON_SPINNER_SIZE_PX}px`,
  '--spinner-turn': `${SPINNER_TURN_MS}ms`,
  '--overlay-layer': String(OVERLAY_LAYER),
  '--tooltip-layer': String(TOOLTIP_LAYER)
})
