import { useEffect, useState } from 'react'
import type { PageBackground } from '../../common/page/runtime-config.js'
import desktopPoster from './media/background-desktop-poster.jpg'
import desktopMp4 from './media/background-desktop.mp4'
import desktopWebm from './media/background-desktop.webm'
import mobilePoster from './media/background-mobile-poster.jpg'
import mobileMp4 from './media/background-mobile.mp4'
import mobileWebm from './media/background-mobile.webm'
import { MOBILE_BREAKPOINT_PX, MOBILE_MEDIA_QUERY } from '../components/constants.js'
import { prefersStillBackground } from './motion-preferences.js'
import { useWindowWidth } from '../page/window-width.js'
import { useMessages } from '../languages/messages.js'

const VARIANTS = {
  desktop: { poster: desktopPoster, webm: desktopWebm, mp4: desktopMp4 },
  mobile: { poster: mobilePoster, webm: mobileWebm, mp4: mobileMp4 }
}

/** Resolves once the page is interactive and the browser is idle. */
function afterPageSettles (run: () => void): () => void {
  let cancelled = false
  const start = (): void => {
    const idle = window as Window & { requestIdleCallback?: (callback: () => void) => number }
    if (idle.requestIdleCallback !== undefined) idle.requestIdleCallback(() => { if (!cancelled) run() })
    else setTimeout(() => { if (!cancelled) run() }, 200)
  }
  if (document.readyState === 'complete') start()
  else window.addEventListener('load', start, { once: true })
  return () => { cancelled = true }
}

/**
 * The decorative background: the poster at once, the video (WebM, else MP4)
 * only after the page is interactive, and never under reduced motion or
 * Save-Data. The mobile variant shows below 512 px: the poster chooses by a
 * media query (the server's markup is the same at every width), the video by
 * the window's width once it loads, after hydration. A visible control pauses
 * it (WCAG 2.2.2: moving content must be stoppable). The operator may set
 * their own poster and video, or none (BACKGROUND=none: the page's plain
 * colour, no media at all; docs/branding.md).
 */
export function BackgroundVideo ({ background }: { background: PageBackground }) {
  const { text } = useMessages()
  const [loadVideo, setLoadVideo] = useState(false)
  const [paused, setPaused] = useState(false)
  const width = useWindowWidth()
  const variant = VARIANTS[width !== null && width < MOBILE_BREAKPOINT_PX ? 'mobile' : 'desktop']
  // The operator's background is one poster and at most one video, at every width (object-fit covers).
  const operator = background.kind === 'operator' ? background : null
  const hasVideo = background.kind === 'builtin' || operator?.video != null
  // Read in an effect: the server cannot know the visitor's preferences.
  useEffect(() => (!hasVideo || prefersStillBackground() ? undefined : afterPageSettles(() => setLoadVideo(true))), [hasVideo])

  if (background.kind === 'none') return null

  return (
    <>
      <div className='background'>
        {loadVideo
          ? (
            <video key={operator?.video?.src ?? variant.mp4} className='background__media' aria-hidden='true' poster={operator?.poster ?? variant.poster} muted loop playsInline autoPlay={!paused}
              ref={(video) => { if (video !== null) { video.muted = true; if (paused) video.pause(); else void video.play().catch(() => {}) } }}>
              {operator?.video != null
                ? <source src={operator.video.src} type={operator.video.type} />
                : <><source src={variant.webm} type='video/webm' /><source src={variant.mp4} type='video/mp4' /></>}
            </video>
            )
          : (
            <picture>
              {operator === null && <source media={MOBILE_MEDIA_QUERY} srcSet={VARIANTS.mobile.poster} />}
              <img className='background__media' src={operator?.poster ?? VARIANTS.desktop.poster} alt='' />
            </picture>
            )}
      </div>
      {loadVideo && (
        <button type='button' className='background__control' aria-pressed={paused} onClick={() => setPaused(!paused)}>
          {text(paused ? 'background.play' : 'background.pause')}
        </button>
      )}
    </>
  )
}
