import { useSyncExternalStore } from 'react'
import { useMessages } from '../languages/messages.js'

/** The time zone the server renders in: the browser puts its own in once it has hydrated. */
const SERVER_TIME_ZONE = 'UTC'

const noChange = (): (() => void) => () => undefined
const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone

/**
 * The account's times (milliseconds since the epoch) as text in the page's
 * language and the visitor's time zone. The server knows no zone: it renders
 * in UTC, naming it; the page hydrates that markup as it is, then shows its
 * own zone's times (useSyncExternalStore's server snapshot).
 */
export function useAccountTimes (): (at: number) => string {
  const { locale } = useMessages()
  const timeZone = useSyncExternalStore(noChange, browserTimeZone, () => SERVER_TIME_ZONE)
  const format = new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone,
    ...(timeZone === SERVER_TIME_ZONE ? { timeZoneName: 'short' } : {})
  })
  return (at) => format.format(at)
}
