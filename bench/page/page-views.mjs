// The page's views as the page benchmarks open them: the address's query that
// asks for each, and the text of its submit button (what "the form" is in
// bench/page/page-milestones.mjs). setPassword is shown only where the edge
// completes password resets itself (the embedded accounts service), and only
// with a token in the address: the token here is a stand-in that no submit uses.

/** Every view, in the order the benchmarks report them. */
export const PAGE_VIEWS = Object.freeze([
  { name: 'login', query: '', submitText: 'Login' },
  { name: 'register', query: '?view=register', submitText: 'Sign Up' },
  { name: 'resetPassword', query: '?view=resetPassword', submitText: 'Send a Password Reset Email' },
  { name: 'setPassword', query: '?view=setPassword&token=bench-stand-in-token', submitText: 'Set New Password' }
])

/** @typedef {typeof PAGE_VIEWS[number]} PageView */

/**
 * The view named `name`, or an error that lists the known names.
 * @param {string} name
 */
export function pageView (name) {
  const view = PAGE_VIEWS.find((candidate) => candidate.name === name)
  if (view === undefined) throw new Error(`unknown view ${JSON.stringify(name)}: one of ${PAGE_VIEWS.map((known) => known.name).join(', ')}`)
  return view
}
