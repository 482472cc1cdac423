export interface NoticeContent {
  readonly kind: 'error' | 'success'
  readonly text: string
}

/**
 * The error or success text above the form. Errors are announced at once
 * (role=alert), successes politely (role=status). The live region stays in
 * the page even when empty, so that screen readers notice new text.
 */
export function Notice ({ id, notice }: { id: string, notice: NoticeContent | null }) {
  return (
    <div id={id} className={`notice${notice === null ? '' : ` notice--${notice.kind}`}`} role={notice?.kind === 'success' ? 'status' : 'alert'}>
      {notice?.text}
    </div>
  )
}
