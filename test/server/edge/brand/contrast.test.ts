import t from 'tap'
import { contrastRatio, formatRatio, mixColours, normalizeHexColour, relativeLuminance } from '../../../../server/edge/brand/contrast.js'

t.test('contrast ratios match WCAG\'s published values', async (t) => {
  t.equal(formatRatio(contrastRatio('#767676', '#ffffff')), '4.54:1', 'the lightest grey that passes AA on white')
  t.equal(formatRatio(contrastRatio('#777777', '#ffffff')), '4.47:1', 'one step lighter fails')
  t.equal(contrastRatio('#000000', '#ffffff'), 21, 'black on white is the maximum')
  t.equal(contrastRatio('#ffffff', '#000'), 21, 'the order of the pair does not matter, nor #rgb against #rrggbb')
  t.equal(contrastRatio('#1d5fa8', '#1d5fa8'), 1)
  t.equal(formatRatio(contrastRatio('#0000ff', '#ffffff')), '8.59:1')
  t.equal(formatRatio(contrastRatio('#ff0000', '#ffffff')), '3.99:1')
})

t.test('relative luminance follows the sRGB formula', async (t) => {
  t.equal(relativeLuminance('#000000'), 0)
  t.equal(relativeLuminance('#ffffff'), 1)
  t.ok(Math.abs(relativeLuminance('#808080') - 0.2158605) < 1e-6, 'mid grey, past the linear segment')
  t.ok(Math.abs(relativeLuminance('#0a0a0a') - 10 / 255 / 12.92) < 1e-9, 'a dark grey, on the linear segment')
})

t.test('a ratio is rounded down, so that one just short of 4.5:1 never reads as passing', async (t) => {
  t.equal(formatRatio(4.4999), '4.49:1')
  t.equal(formatRatio(4.5), '4.5:1')
  t.equal(formatRatio(21), '21:1')
})

t.test('colours are read as #rgb or #rrggbb, and nothing else', async (t) => {
  t.equal(normalizeHexColour('#ABC'), '#aabbcc')
  t.equal(normalizeHexColour('#1D5FA8'), '#1d5fa8')
  for (const bad of ['red', '#12345', 'rgb(0,0,0)', '#1d5fa8;}', '', '#gggggg']) t.throws(() => normalizeHexColour(bad), TypeError, bad)
})

t.test('mixing moves a colour towards another by the given share', async (t) => {
  t.equal(mixColours('#000000', '#ffffff', 0), '#000000')
  t.equal(mixColours('#000000', '#ffffff', 1), '#ffffff')
  t.equal(mixColours('#000000', '#ffffff', 0.5), '#808080')
})
