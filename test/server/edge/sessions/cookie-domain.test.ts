import t from 'tap'
import { cookieDomainFor, isPublicSuffix } from '../../../../server/edge/sessions/cookie-domain.js'

t.test('the cookie domain is the parent of the page\'s host when the parent is no public suffix', async (t) => {
  t.equal(cookieDomainFor('sub.example.com', null), 'example.com')
  t.equal(cookieDomainFor('a.b.example.com', null), 'b.example.com', 'one label up, as before')
  t.equal(cookieDomainFor('signin.example.co.uk', null), 'example.co.uk')
  t.equal(cookieDomainFor('signin.demo.herokuapp.com', null), 'demo.herokuapp.com')
  t.equal(cookieDomainFor('Signin.Example.COM', null), 'example.com', 'the Host header\'s case does not matter')
})

t.test('a registrable domain under a public suffix is its own cookie domain, so no other registrant shares it', async (t) => {
  t.equal(cookieDomainFor('example.com', null), 'example.com')
  t.equal(cookieDomainFor('example.co.uk', null), 'example.co.uk', 'not co.uk: evil-shop.co.uk is someone else')
  t.equal(cookieDomainFor('demo.herokuapp.com', null), 'demo.herokuapp.com', 'not herokuapp.com: every Heroku app is someone else')
  t.equal(cookieDomainFor('ada.github.io', null), 'ada.github.io')
  t.equal(cookieDomainFor('bucket.s3.amazonaws.com', null), 'bucket.s3.amazonaws.com')
})

t.test('a host that is itself a public suffix, an address, localhost or one label gets host-only cookies', async (t) => {
  for (const host of ['co.uk', 'herokuapp.com', 'github.io', 'com', 's3.amazonaws.com']) {
    t.equal(cookieDomainFor(host, null), null, host)
  }
  t.equal(cookieDomainFor('127.0.0.1', null), null, 'an IPv4 address')
  t.equal(cookieDomainFor('203.0.113.7', null), null, 'a public IPv4 address is not a.b.c.d under d')
  t.equal(cookieDomainFor('[::1]', null), null, 'an IPv6 address')
  t.equal(cookieDomainFor('[2001:db8::1]', null), null)
  t.equal(cookieDomainFor('localhost', null), null)
  t.equal(cookieDomainFor('app.localhost', null), null)
  t.equal(cookieDomainFor('intranet', null), null, 'a single label')
  t.equal(cookieDomainFor('example.com.', null), null, 'a trailing dot: the browser\'s host is not example.com')
  t.equal(cookieDomainFor('my_app.internal', null), null, 'no DNS name (an underscore, as container names have)')
  t.equal(cookieDomainFor('', null), null, 'no Host header (HTTP/1.0)')
})

t.test('internationalised names are read in their punycode form, as browsers send them', async (t) => {
  // .рф (xn--p1ai) and ทหาร.ไทย (xn--12c1fe0br.xn--o3cw4h), a second-level suffix of Thailand.
  t.equal(cookieDomainFor('xn--d1acufc.xn--p1ai', null), 'xn--d1acufc.xn--p1ai')
  t.equal(cookieDomainFor('signin.xn--d1acufc.xn--p1ai', null), 'xn--d1acufc.xn--p1ai')
  t.equal(cookieDomainFor('shop.xn--12c1fe0br.xn--o3cw4h', null), 'shop.xn--12c1fe0br.xn--o3cw4h', 'not the suffix above it')
  t.equal(cookieDomainFor('xn--12c1fe0br.xn--o3cw4h', null), null, 'the suffix itself')
  t.equal(cookieDomainFor('xn--bcher-kva.example.com', null), 'example.com')
})

t.test('COOKIE_DOMAIN wins, for every host', async (t) => {
  t.equal(cookieDomainFor('sub.example.com', 'corp.example.com'), 'corp.example.com')
  t.equal(cookieDomainFor('localhost', 'corp.example.com'), 'corp.example.com')
})

t.test('public suffixes are those the list names, its private section included', async (t) => {
  for (const suffix of ['com', 'co.uk', 'CO.UK', 'herokuapp.com', 'github.io', 'xn--p1ai', 'xn--12c1fe0br.xn--o3cw4h', 'a.ck']) {
    t.ok(isPublicSuffix(suffix), suffix)
  }
  for (const name of ['example.com', 'example.co.uk', 'demo.herokuapp.com', 'www.ck', 'localhost', 'intranet', 'corp.test', '127.0.0.1']) {
    t.notOk(isPublicSuffix(name), name)
  }
})
