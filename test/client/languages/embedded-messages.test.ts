import t from 'tap'
import { createMessages, serializePageMessages } from '../../../common/languages/message-catalogue.js'
import { parseEmbeddedMessages } from '../../../client/languages/embedded-messages.js'
import { englishMessages, markedGermanMessages } from '../../fixtures/languages/messages.js'

t.test('the embedded catalogue reads back as the edge serialised it', async (t) => {
  for (const messages of [englishMessages(), markedGermanMessages()]) {
    t.same(parseEmbeddedMessages(serializePageMessages(messages)), messages, messages.locale)
  }
})

t.test('a missing or malformed element reads as English with no texts, so every text shows as its key', async (t) => {
  for (const bad of [null, undefined, '', 'not json', '[]', 'null', '42', '{"locale":"de"}', '{"locale":"de","catalogue":[]}', '{"locale":"de","catalogue":null}']) {
    t.same(parseEmbeddedMessages(bad), { locale: 'en', catalogue: {} }, String(bad))
  }
  t.equal(createMessages(parseEmbeddedMessages('not json')).text('heading.login'), 'heading.login')
})

t.test('a locale not shaped like a tag reads as en, and only string texts are kept', async (t) => {
  const parsed = parseEmbeddedMessages('{"locale":"xx-evil","catalogue":{"heading.login":"Anmelden","heading.register":42,"sso.title":{"x":1}}}')
  t.same(parsed, { locale: 'en', catalogue: { 'heading.login': 'Anmelden' } })
  t.equal(createMessages(parseEmbeddedMessages('{"locale":"ar","catalogue":{}}')).dir, 'rtl', 'a shipped locale is kept, with its direction')
  for (const locale of ['pt-BR', 'zh-Hant', 'he', 'en-XA']) t.equal(parseEmbeddedMessages(`{"locale":"${locale}","catalogue":{}}`).locale, locale)
  for (const locale of ['de-de', 'x', 'de DE', '<b>', 'zh-hant', 42]) t.equal(parseEmbeddedMessages(JSON.stringify({ locale, catalogue: {} })).locale, 'en', `${String(locale)}: not a tag`)
})

t.test('a hostile catalogue sets no prototype and pollutes nothing', async (t) => {
  const parsed = parseEmbeddedMessages('{"locale":"en","catalogue":{"__proto__":{"polluted":"1"},"toString":"y"}}')
  t.equal(Object.getPrototypeOf(parsed.catalogue), Object.prototype, 'no prototype taken from the page')
  t.equal(({} as Record<string, unknown>).polluted, undefined)
  t.equal(createMessages(parsed).text('heading.login'), 'heading.login', 'an inherited name is no text')
})
