import t from 'tap'
import { chooseLocale, supportedLocaleOf } from '../../../../server/shared/languages/locale-choice.js'

const defaultLocale = 'en'

t.test('ui_locales wins over Accept-Language, which wins over the default', async (t) => {
  t.equal(chooseLocale({ uiLocales: 'fr', acceptLanguage: 'de', defaultLocale }), 'fr')
  t.equal(chooseLocale({ uiLocales: null, acceptLanguage: 'de', defaultLocale }), 'de')
  t.equal(chooseLocale({ uiLocales: '', acceptLanguage: '', defaultLocale: 'ja' }), 'ja')
  t.equal(chooseLocale({ defaultLocale: 'ar' }), 'ar')
})

t.test('the first supported tag of ui_locales wins; unsupported ones fall through to Accept-Language', async (t) => {
  t.equal(chooseLocale({ uiLocales: 'sw ga es fr', acceptLanguage: 'de', defaultLocale }), 'es')
  t.equal(chooseLocale({ uiLocales: 'sw ga', acceptLanguage: 'de', defaultLocale }), 'de')
  t.equal(chooseLocale({ uiLocales: '  ja\tde ', defaultLocale }), 'ja', 'any whitespace separates tags')
})

t.test('a regional tag is matched by its primary subtag, in any case', async (t) => {
  t.equal(supportedLocaleOf('de-CH'), 'de')
  t.equal(supportedLocaleOf('AR-eg'), 'ar')
  t.equal(supportedLocaleOf('sw-KE'), null, 'a language not shipped, whatever its region')
  t.equal(chooseLocale({ uiLocales: 'es-419', defaultLocale }), 'es')
  t.equal(chooseLocale({ acceptLanguage: 'fr-CA,fr;q=0.9', defaultLocale }), 'fr')
})

t.test('a language written two ways, or known by another code, falls back as its readers expect', async (t) => {
  const expected: ReadonlyArray<readonly [string, string]> = [
    ['pt-BR', 'pt-BR'], ['pt', 'pt-BR'], ['pt-br', 'pt-BR'], ['pt-PT', 'pt-PT'], ['pt-AO', 'pt-PT'], ['pt-MZ', 'pt-PT'],
    ['zh', 'zh-Hans'], ['zh-CN', 'zh-Hans'], ['zh-SG', 'zh-Hans'], ['zh-Hans', 'zh-Hans'], ['zh-hans-hk', 'zh-Hans'],
    ['zh-TW', 'zh-Hant'], ['zh-HK', 'zh-Hant'], ['zh-MO', 'zh-Hant'], ['zh-Hant', 'zh-Hant'], ['zh-Hant-TW', 'zh-Hant'], ['ZH-HANT', 'zh-Hant'],
    ['zh-u-nu-hanidec', 'zh-Hans'], ['zh-CN-u-co-pinyin', 'zh-Hans'], ['cmn-Hant-TW', 'zh-Hant'], ['cmn', 'zh-Hans'], ['yue-HK', 'zh-Hant'],
    ['nb', 'nb'], ['nb-NO', 'nb'], ['no', 'nb'], ['nn', 'nb'], ['nn-NO', 'nb'],
    ['iw', 'he'], ['he-IL', 'he'], ['in', 'id'], ['fa-IR', 'fa'], ['ms-MY', 'ms'], ['ko-KR', 'ko'], ['uk-UA', 'uk'],
    ['en-u-ca-buddhist', 'en'], ['de-CH-x-private', 'de']
  ]
  t.same(expected.map(([tag]) => [tag, supportedLocaleOf(tag)]), expected)
  t.equal(chooseLocale({ acceptLanguage: 'zh-TW,zh;q=0.9,en;q=0.8', defaultLocale }), 'zh-Hant', 'Taiwan\'s browser')
  t.equal(chooseLocale({ acceptLanguage: 'pt-BR,pt;q=0.9', defaultLocale }), 'pt-BR')
})

t.test('the pseudo-locales are chosen only where they are on, and only by their exact tag', async (t) => {
  t.equal(chooseLocale({ uiLocales: 'en-XA', defaultLocale }), 'en', 'off: en-XA is English')
  t.equal(chooseLocale({ uiLocales: 'ar-XB', defaultLocale }), 'ar', 'off: ar-XB is Arabic')
  t.equal(chooseLocale({ uiLocales: 'en-xa', defaultLocale, pseudoLocales: true }), 'en-XA')
  t.equal(chooseLocale({ acceptLanguage: 'ar-XB', defaultLocale, pseudoLocales: true }), 'ar-XB')
  t.equal(chooseLocale({ acceptLanguage: 'en-GB', defaultLocale, pseudoLocales: true }), 'en', 'English is still English')
  t.equal(supportedLocaleOf('en-XA'), 'en', 'never a shipped locale: MESSAGES_DIR and DEFAULT_LOCALE cannot name one')
})

t.test('Accept-Language is read by weight, then in order; q=0 refuses a language', async (t) => {
  t.equal(chooseLocale({ acceptLanguage: 'sw, de;q=0.5, fr;q=0.8', defaultLocale }), 'fr')
  t.equal(chooseLocale({ acceptLanguage: 'de;q=0.5, fr;q=0.5', defaultLocale }), 'de', 'equal weights: the first')
  t.equal(chooseLocale({ acceptLanguage: 'de;q=0, fr;q=0.1', defaultLocale }), 'fr')
  t.equal(chooseLocale({ acceptLanguage: 'de;q=0', defaultLocale: 'ja' }), 'ja', 'q=0 alone: the default')
  t.equal(chooseLocale({ acceptLanguage: 'de;Q=0.700', defaultLocale }), 'de', 'the q parameter in any case, three decimals')
  t.equal(chooseLocale({ acceptLanguage: ['sw', 'ar;q=0.4'], defaultLocale }), 'ar', 'repeated headers')
})

t.test('* stands for the default locale at its weight', async (t) => {
  t.equal(chooseLocale({ acceptLanguage: '*', defaultLocale: 'es' }), 'es')
  t.equal(chooseLocale({ acceptLanguage: '*;q=0.9, de;q=0.5', defaultLocale: 'es' }), 'es')
  t.equal(chooseLocale({ acceptLanguage: 'de, *;q=0.1', defaultLocale: 'es' }), 'de')
})

t.test('malformed tags and weights are skipped quietly', async (t) => {
  t.equal(chooseLocale({ uiLocales: '<script>de</script> de"onload=x', acceptLanguage: 'fr', defaultLocale }), 'fr')
  t.equal(chooseLocale({ uiLocales: 'de\u0000 ar\u0007 \r\n', defaultLocale }), 'en', 'a tag with a control character is no tag')
  t.equal(chooseLocale({ uiLocales: 'de_DE', defaultLocale }), 'en', 'an underscore is not BCP 47')
  t.equal(chooseLocale({ acceptLanguage: 'de;q=2, fr;q=abc, es;q=0.5;x=1, ja;q=0.3', defaultLocale }), 'ja')
  t.equal(chooseLocale({ acceptLanguage: 'deutsch-ist-schoen-und-lang, ,;,', defaultLocale }), 'en')
  t.equal(chooseLocale({ acceptLanguage: 'toolongtag-de', defaultLocale }), 'en', 'a primary subtag over 8 letters')
})

t.test('a huge ui_locales or Accept-Language is read only so far', async (t) => {
  const huge = 'xx '.repeat(35_000) + 'de'
  const started = performance.now()
  t.equal(chooseLocale({ uiLocales: huge, acceptLanguage: huge.replace(/ /g, ','), defaultLocale }), 'en', 'a tag past the first 256 characters is not read')
  t.equal(chooseLocale({ uiLocales: 'x '.repeat(16) + 'de', defaultLocale }), 'en', 'nor a 17th tag')
  t.equal(chooseLocale({ uiLocales: 'x '.repeat(15) + 'de', defaultLocale }), 'de', 'the 16th is')
  t.equal(chooseLocale({ acceptLanguage: 'de'.padEnd(100_000, 'e'), defaultLocale }), 'en', '100 KB in one tag')
  // What bounds the work is the reading above (256 characters, 16 tags); the time is a figure, never a verdict.
  t.comment(`five choices over 100 KB inputs: ${(performance.now() - started).toFixed(2)} ms`)
})

t.test('`*` means the languages not otherwise listed: it never brings back one refused with q=0 (RFC 9110)', async (t) => {
  t.equal(chooseLocale({ acceptLanguage: 'en;q=0, *;q=0.5', defaultLocale: 'en' }), 'de', 'the default refused: the first shipped locale not refused')
  t.equal(chooseLocale({ acceptLanguage: '*;q=0.5, en;q=0', defaultLocale: 'en' }), 'de', 'a refusal after `*` counts too')
  t.equal(chooseLocale({ acceptLanguage: 'en;q=0, de;q=0, *', defaultLocale: 'en' }), 'fr')
  t.equal(chooseLocale({ acceptLanguage: 'de;q=0, *;q=0.5', defaultLocale: 'en' }), 'en', 'the default not refused: still the default')
  t.equal(chooseLocale({ acceptLanguage: 'en-GB;q=0, *', defaultLocale: 'en' }), 'de', 'a refused regional tag refuses its shipped locale')
})
