import { readFileSync } from 'node:fs'
import t from 'tap'
import { contrastRatio, formatRatio } from '../../server/edge/brand/contrast.js'

const stylesheet = readFileSync(new URL('../../client/styles.css', import.meta.url), 'utf8')

function properties (block: string): Record<string, string> {
  return Object.fromEntries([...block.matchAll(/(--[\w-]+):\s*(#[0-9a-f]{6})\s*;/g)].map((match) => [match[1]!, match[2]!]))
}

const light = properties(/:root\s*\{([^}]*)\}/.exec(stylesheet)?.[1] ?? '')
const forcedDark = properties(/:root\[data-theme="dark"\]\s*\{([^}]*)\}/.exec(stylesheet)?.[1] ?? '')
const systemDark = properties(/@media \(prefers-color-scheme: dark\) \{\s*:root\[data-theme="system"\]\s*\{([^}]*)\}/.exec(stylesheet)?.[1] ?? '')

/** Every text (first) on the background it is drawn on (second), as the stylesheet pairs them. */
const TEXT_PAIRS: ReadonlyArray<readonly [string, string, string]> = [
  ['--ink', '--paper', 'text on the card'],
  ['--ink-soft', '--paper', 'hints, the divider, the copy button'],
  ['--ink', '--paper-soft', 'the banner, a secondary button hovered'],
  ['--ink-soft', '--paper-soft', 'a hint in the banner'],
  ['--ink', '--field-paper', 'typed text, a secondary button'],
  ['--accent', '--paper', 'links'],
  ['--accent', '--paper-soft', 'a link in the banner, the "Last used" tag'],
  ['--accent', '--field-paper', 'the password field\'s Show button'],
  ['--accent-hover', '--paper', 'a link hovered'],
  ['--on-accent', '--accent', 'the primary button'],
  ['--on-accent', '--accent-hover', 'the primary button hovered'],
  ['--danger', '--danger-paper', 'an error notice'],
  ['--ok', '--ok-paper', 'a success notice'],
  ['--paper', '--ink', 'a tooltip'],
  ['--apple-ink', '--apple-paper', 'Sign in with Apple'],
  ['--ms-ink', '--ms-paper', 'Sign in with Microsoft']
]

t.test('every text in both schemes reaches WCAG AA (4.5:1) on its background', async (t) => {
  for (const [scheme, palette] of [['light', light], ['dark', forcedDark]] as const) {
    for (const [text, background, where] of TEXT_PAIRS) {
      const ratio = contrastRatio(palette[text]!, palette[background]!)
      t.ok(ratio >= 4.5, `${scheme}: ${where}, ${text} ${palette[text]} on ${background} ${palette[background]}: ${formatRatio(ratio)}`)
    }
  }
})

t.test('the dark scheme sets every colour the light one does, the same when forced as when chosen by the visitor', async (t) => {
  t.same(Object.keys(forcedDark).sort(), Object.keys(light).filter((name) => name !== '--focus').sort())
  t.same(systemDark, forcedDark)
})

t.test('colours come from the custom properties: no rule names its own, but text over the background media', async (t) => {
  const outsideBlocks = stylesheet.replace(/:root[^{]*\{[^}]*\}/g, '').replace(/\/\*[\s\S]*?\*\//g, '')
  const literal = [...outsideBlocks.matchAll(/^.*(?:color|background)[\w-]*:\s*[^;]*#[0-9a-f]{3,6}.*$/gm)].map((match) => match[0].trim())
  t.equal(literal.length, 2)
  for (const line of literal) {
    t.ok(/^\.brand \{ color: #fff;/.test(line) || /color: #fff; background: rgba\(0, 0, 0, 0\.55\)/.test(line),
      `only the white text over the background media (the brand's name, the pause control), the same in both schemes: ${line}`)
  }
})

t.test('the layout is written in logical properties, so that <html dir="rtl"> mirrors it', async (t) => {
  const physical = [...stylesheet.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/^.*\b(?:(?:margin|padding|border)-(?:left|right)|(?<![\w-])(?:left|right)\s*:|text-align:\s*(?:left|right)|float:\s*(?:left|right)).*$/gm)]
    .map((match) => match[0].trim())
  t.equal(physical.length, 2, 'two physical properties, both below')
  for (const line of physical) {
    t.ok(/border-right-color: transparent/.test(line) || /left: 50%; transform: translateX\(-50%\)/.test(line),
      `only what is symmetric: a spinner's gap (it turns), a tooltip centred on its anchor: ${line}`)
  }
})
