// What bench:page times in the browser, as one function that Playwright runs in
// the page before any of the page's own scripts (addInitScript: it is
// serialised, so it uses nothing from this module's scope). Three milestones,
// in milliseconds since navigation start (performance.now()):
//
// - visible: the first animation frame in which the form's submit button is
//   laid out (a box wider and taller than zero) and every stylesheet the page
//   links has loaded (each <link rel=stylesheet> has its CSSStyleSheet; a page
//   whose CSS is all inline, as this one's is, links none), so the
//   frame painted the styled form, not unstyled markup. Taken in a
//   requestAnimationFrame callback, i.e. the frame that paints it.
// - hydrated: React has attached to the button: the element carries React's
//   internal __reactFiber$…/__reactProps$… key (set when React renders or
//   hydrates the element). Hydration changes no markup, so this is also polled
//   once a frame: it can be late by up to a frame (about 16 ms, more under the
//   CPU throttling).
// - usable: a submit would work: the form is visible, its button is enabled,
//   and either the button is hydrated or its form posts by itself without
//   scripts (form[method=post]). Never before visible: nobody submits a form
//   they cannot see. Recorded with it: whether the form posts without scripts
//   (usableWithoutScripts), i.e. whether its scripts gated it
//   (bench/page/network-floor.mjs counts them in the floor where they did).
//
// A client-rendered page inserts the form already hydrated, so there
// hydrated ≤ visible = usable (the next frame); a server-rendered one shows
// (and, posting by itself, accepts) the form before its scripts hydrate it.

/** @typedef {{ visible?: number, usable?: number, hydrated?: number, usableWithoutScripts?: boolean }} Milestones */
/** @typedef {Window & { __pageMilestones?: Milestones }} WatchedWindow the page's window once watchPageMilestones runs */

/**
 * Records the milestones of the form whose submit button reads `submitText` in window.__pageMilestones.
 * @param {string} submitText
 */
export function watchPageMilestones (submitText) {
  /** @type {Milestones} */
  const milestones = {}
  const watched = /** @type {WatchedWindow} */ (window)
  watched.__pageMilestones = milestones
  const submitButton = () => [.../** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('button[type="submit"]'))]
    .find((candidate) => candidate.textContent?.trim() === submitText)
  const stylesLoaded = () => {
    const links = [.../** @type {NodeListOf<HTMLLinkElement>} */ (document.querySelectorAll('link[rel~="stylesheet"]'))]
    return links.every((link) => link.sheet !== null)
  }
  const isHydrated = (/** @type {HTMLButtonElement} */ button) => Object.keys(button).some((key) => key.startsWith('__reactFiber$') || key.startsWith('__reactProps$'))
  const postsWithoutScripts = (/** @type {HTMLButtonElement} */ button) => button.form !== null && button.form.getAttribute('method')?.toLowerCase() === 'post'
  const done = () => milestones.visible !== undefined && milestones.usable !== undefined && milestones.hydrated !== undefined

  // Called from a mutation (exact time for markup that scripts insert) and once a frame.
  const check = (/** @type {boolean} */ inFrame) => {
    const now = performance.now()
    const button = submitButton()
    if (button === undefined) return
    if (milestones.hydrated === undefined && isHydrated(button)) milestones.hydrated = now
    if (milestones.visible === undefined && inFrame && stylesLoaded()) {
      const box = button.getBoundingClientRect()
      if (box.width > 0 && box.height > 0) milestones.visible = now
    }
    if (milestones.usable === undefined && milestones.visible !== undefined && !button.disabled &&
        (milestones.hydrated !== undefined || postsWithoutScripts(button))) {
      milestones.usable = now
      milestones.usableWithoutScripts = postsWithoutScripts(button)
    }
  }
  const observer = new MutationObserver(() => {
    check(false)
    if (done()) observer.disconnect()
  })
  observer.observe(document, { subtree: true, childList: true, attributes: true })
  const onFrame = () => {
    check(true)
    if (done()) observer.disconnect()
    else requestAnimationFrame(onFrame)
  }
  requestAnimationFrame(onFrame)
}
