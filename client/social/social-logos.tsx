import type { SocialProviderType } from '../../common/social/social-providers.js'

/*
 * The providers' logos as their brand guidelines give them, in the fewest
 * paths that draw them: Apple's logo (Human Interface Guidelines, "Sign in
 * with Apple"), drawn in the text's colour so that it follows the button's
 * black or white style; Microsoft's four squares in their four colours
 * ("Sign in with Microsoft" branding guidelines); GitHub's mark in
 * monochrome. Decorative: the button's text names the provider.
 */

const APPLE = 'M16.37 1.43c0 1.14-.5 2.27-1.18 3.08-.74.9-1.99 1.57-2.99 1.57-.12 0-.23-.02-.3-.03-.01-.06-.04-.22-.04-.39 0-1.15.57-2.27 1.2-2.98.81-.94 2.15-1.64 3.25-1.68.03.13.06.28.06.43Zm4.56 15.71c-.03.07-.46 1.58-1.52 3.12-.94 1.34-1.94 2.71-3.43 2.71-1.52 0-1.9-.88-3.63-.88-1.7 0-2.3.91-3.67.91-1.38 0-2.33-1.26-3.43-2.8C3.96 18.38 2.92 15.57 2.92 12.92c0-4.28 2.8-6.55 5.55-6.55 1.45 0 2.68.95 3.6.95.87 0 2.22-1.01 3.9-1.01.62 0 2.89.06 4.38 2.19-.13.09-2.39 1.37-2.39 4.19 0 3.26 2.86 4.42 2.96 4.45Z'
const GITHUB = 'M8 0a8 8 0 0 0-2.53 15.59c.4.07.55-.17.55-.38l-.01-1.49c-2.01.37-2.53-.49-2.69-.94-.09-.23-.48-.94-.82-1.13-.28-.15-.68-.52-.01-.53.63-.01 1.08.58 1.23.82.72 1.21 1.87.87 2.33.66.07-.52.28-.87.51-1.07-1.78-.2-3.64-.89-3.64-3.95 0-.87.31-1.59.82-2.15-.08-.2-.36-1.02.08-2.12 0 0 .67-.21 2.2.82a7.4 7.4 0 0 1 4 0c1.53-1.04 2.2-.82 2.2-.82.44 1.1.16 1.92.08 2.12.51.56.82 1.27.82 2.15 0 3.07-1.87 3.75-3.65 3.95.29.25.54.73.54 1.48l-.01 2.2c0 .21.15.46.55.38A8 8 0 0 0 8 0Z'
const MICROSOFT: ReadonlyArray<readonly [number, number, string]> = [[1, 1, '#f25022'], [11, 1, '#7fba00'], [1, 11, '#00a4ef'], [11, 11, '#ffb900']]

/** The logo of a provider type that has one (Apple, Microsoft, GitHub); null for a generic connection, whose icon is the operator's. */
export function SocialLogo ({ type }: { type: SocialProviderType }) {
  if (type === 'apple') {
    return <svg className='social__logo' viewBox='0 0 24 24' aria-hidden='true' focusable='false'><path fill='currentColor' d={APPLE} /></svg>
  }
  if (type === 'github') {
    return <svg className='social__logo' viewBox='0 0 16 16' aria-hidden='true' focusable='false'><path fill='currentColor' d={GITHUB} /></svg>
  }
  if (type === 'microsoft') {
    return (
      <svg className='social__logo' viewBox='0 0 21 21' aria-hidden='true' focusable='false'>
        {MICROSOFT.map(([x, y, fill]) => <rect key={fill} x={x} y={y} width='9' height='9' fill={fill} />)}
      </svg>
    )
  }
  return null
}
