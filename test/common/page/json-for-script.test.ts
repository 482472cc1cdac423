import t from 'tap'
import { jsonForScriptElement } from '../../../common/page/json-for-script.js'

t.test('a value cannot close its script element or start markup, and reads back unchanged', async (t) => {
  const hostile = { text: '</script><script>alert(1)</script><!-- & \u2028\u2029 >' }
  const json = jsonForScriptElement(hostile)
  t.notMatch(json, /[<>&\u2028\u2029]/, 'none of the characters HTML or old JavaScript parsers act on is left')
  t.same(JSON.parse(json), hostile, 'JSON.parse gives back the very value')
})

t.test('plain values are written as JSON.stringify writes them', async (t) => {
  const plain = { locale: 'de', list: [1, 'zwei', null], nested: { ok: true } }
  t.equal(jsonForScriptElement(plain), JSON.stringify(plain))
})
