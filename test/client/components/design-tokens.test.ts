import t from 'tap'
import { readFileSync } from 'node:fs'
import { DESIGN_TOKENS, MOBILE_MEDIA_QUERY, STACKED_BREAKPOINT_PX } from '../../../client/components/constants.js'

const stylesheet = readFileSync(new URL('../../../client/styles.css', import.meta.url), 'utf8')
const rootRule = /:root\s*\{([^}]*)\}/.exec(stylesheet)?.[1] ?? ''

t.test('the stylesheet declares every design token with constants.ts\'s value, and no other', async (t) => {
  const declared = Object.fromEntries([...rootRule.matchAll(/(--[\w-]+):\s*([^;]+);/g)].map((match) => [match[1], match[2]!.trim()]))
  for (const [name, value] of Object.entries(DESIGN_TOKENS)) t.equal(declared[name], value, name)
  const sizes = Object.keys(declared).filter((name) => /width|size|layer|turn|modal/.test(name))
  t.same(sizes.sort(), Object.keys(DESIGN_TOKENS).sort(), 'no token only in the stylesheet')
})

t.test('the layout\'s media queries sit at constants.ts\'s breakpoints', async (t) => {
  t.match(stylesheet, `@media (max-width: ${STACKED_BREAKPOINT_PX - 1}.98px)`)
  t.match(stylesheet, `@media ${MOBILE_MEDIA_QUERY} {`, 'the one the background\'s poster uses too')
  t.notMatch(stylesheet, /data-layout/, 'no layout switched by script')
})
