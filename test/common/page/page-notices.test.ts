import t from 'tap'
import { NOTICE_KINDS, NOTICE_MESSAGE_KEYS, noticeKind, noticeMessageKey, PAGE_NOTICE_VIEWS, type PageNotice } from '../../../common/page/page-notices.js'

// The page's first load derives a code's key and kind by rule (common/page/page-notices.ts); the tables are what they must be.
t.test('every notice code\'s text key and kind follow the rules the page uses', async (t) => {
  const codes = Object.keys(PAGE_NOTICE_VIEWS) as PageNotice[]
  t.same(Object.keys(NOTICE_MESSAGE_KEYS).sort(), [...codes].sort(), 'a key for every code')
  t.same(Object.keys(NOTICE_KINDS).sort(), [...codes].sort(), 'a kind for every code')
  for (const code of codes) {
    t.equal(noticeMessageKey(code), NOTICE_MESSAGE_KEYS[code], `${code}: its key`)
    t.equal(noticeKind(code), NOTICE_KINDS[code], `${code}: ${NOTICE_KINDS[code]}`)
  }
})
