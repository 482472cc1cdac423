import t from 'tap'
import { addressRange, ipv6SiteRange, ownerShownRange } from '../../../server/shared/address-range.js'

t.test('an IPv4 address is its own range; an IPv6 address is counted by its /64', async (t) => {
  t.equal(addressRange('198.51.100.9'), '198.51.100.9')
  t.equal(addressRange('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64')
  t.equal(addressRange('2001:db8:1:2::9'), addressRange('2001:db8:1:2:ffff:ffff:ffff:ffff'), 'two addresses of one /64')
  t.not(addressRange('2001:db8:1:2::1'), addressRange('2001:db8:1:3::1'), 'the next /64 is another range')
})

t.test('ipv6SiteRange: the /48 of an IPv6 address, compressed or written out', async (t) => {
  t.equal(ipv6SiteRange('2001:db8:1:2::9'), '2001:db8:1::/48')
  t.equal(ipv6SiteRange('2001:db8::1'), '2001:db8:0::/48')
  t.equal(ipv6SiteRange('2001:0db8:0001:ffff:1:2:3:4'), '2001:db8:1::/48')
  t.equal(ipv6SiteRange('2001:db8:1:2::1'), ipv6SiteRange('2001:db8:1:ffff::1'), 'two /64s of one /48')
  t.not(ipv6SiteRange('2001:db8:1::1'), ipv6SiteRange('2001:db8:2::1'), 'the next /48 is another range')
})

t.test('ownerShownRange: the /24 of IPv4 and the /48 of IPv6 an owner is shown, never the address', async (t) => {
  t.equal(ownerShownRange('203.0.113.9'), '203.0.113.0/24')
  t.equal(ownerShownRange('203.0.113.9:51234'), '203.0.113.0/24', 'without a port')
  t.equal(ownerShownRange('::ffff:203.0.113.9'), '203.0.113.0/24', 'an IPv4-mapped address as IPv4')
  t.equal(ownerShownRange('2001:DB8:1:2::9'), '2001:db8:1::/48')
  t.equal(ownerShownRange('[2001:db8:1:2::9]:443'), '2001:db8:1::/48')
  for (const raw of [undefined, '', 'unknown', '203.0.113']) t.equal(ownerShownRange(raw), '', `${String(raw)}: nothing`)
})
