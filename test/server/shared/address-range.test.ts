import t from 'tap'
import { addressRange } from '../../../server/shared/address-range.js'

t.test('an IPv4 address is its own range; an IPv6 address is counted by its /64', async (t) => {
  t.equal(addressRange('198.51.100.9'), '198.51.100.9')
  t.equal(addressRange('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64')
  t.equal(addressRange('2001:db8:1:2::9'), addressRange('2001:db8:1:2:ffff:ffff:ffff:ffff'), 'two addresses of one /64')
  t.not(addressRange('2001:db8:1:2::1'), addressRange('2001:db8:1:3::1'), 'the next /64 is another range')
})
