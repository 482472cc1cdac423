import t from 'tap'
import { checkedProviderUrl, isInsecureLoopback } from '../../../../../server/reference/social/providers/provider-urls.js'

t.test('a provider URL is https, or plain http on loopback for a connection configured on loopback only', async (t) => {
  t.equal(checkedProviderUrl('https://login.example.com/token', 'token endpoint', false).href, 'https://login.example.com/token')
  t.equal(checkedProviderUrl('http://127.0.0.1:8443/token', 'token endpoint', true).host, '127.0.0.1:8443')
  t.equal(checkedProviderUrl('http://[::1]:9/keys', 'key set', true).hostname, '[::1]')
  t.throws(() => checkedProviderUrl('http://127.0.0.1:8443/token', 'token endpoint', false), /token endpoint is neither https nor loopback/,
    'an https connection never follows plain http, even to loopback')
  t.throws(() => checkedProviderUrl('http://login.example.com/token', 'token endpoint', true), /neither https nor loopback/,
    'a loopback connection follows plain http to loopback only')
  t.throws(() => checkedProviderUrl('http://127.0.0.1.example.com/token', 'token endpoint', true), /neither https nor loopback/)
  t.throws(() => checkedProviderUrl('javascript:alert(1)', 'authorization endpoint', true), /neither https nor loopback/)
  t.throws(() => checkedProviderUrl('https://user:pass@login.example.com/', 'token endpoint', false), /carries credentials/)
  t.throws(() => checkedProviderUrl('/relative', 'key set', false), /key set is not an absolute URL/)
  t.throws(() => checkedProviderUrl(undefined, 'key set', false), /key set is not an absolute URL/)
})

t.test('only a plain-http loopback configuration is insecure loopback', async (t) => {
  t.equal(isInsecureLoopback('http://127.0.0.1:4000'), true)
  t.equal(isInsecureLoopback('http://localhost:4000/tenant'), true)
  t.equal(isInsecureLoopback('https://127.0.0.1:4000'), false)
  t.equal(isInsecureLoopback('https://appleid.apple.com'), false)
})
