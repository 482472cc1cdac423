import { useEffect, useState } from 'react'
import desktopPoster from '../media/background-desktop-poster.jpg'
import desktopMp4 from '../media/background-desktop.mp4'
import desktopWebm from '../media/background-desktop.webm'
import mobilePoster from '../media/background-mobile-poster.jpg'
import mobileMp4 from '../media/background-mobile.mp4'
import mobileWebm from '../media/background-mobile.webm'
import { MOBILE_BREAKPOINT_PX, MOBILE_MEDIA_QUERY } from '../lib/constants.js'
import { prefersStillBackground } from '../lib/motion-preferences.js'
import { useWindowWidth } from '../lib/window-width.js'
import { useMessages } from '../lib/messages.js'

const VARIANTS = {
  desktop: { poster: desktopPoster, webm: desktopWebm, mp4: desktopMp4 },
  mobile: { poster: mobilePoster, webm: mobileWebm, mp4: mobileMp4 }
}

/** Resolves once the page is interactive and the browser is idle. */
function afterPageSettles (run: () => void): () => void {
  let cancelled = false
  const start = (): void => {
    const idle = (window as Window & { requestIdleCallback?: (callback: () => void) => number }).requestIdleCallback
    if (idle !== undefined) idle(() => { if (!cancelled) run() })
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
 * it (WCAG 2.2.2: moving content must be stoppable).
 */
export function BackgroundVideo () {
  const { text } = useMessages()
  const [loadVideo, setLoadVideo] = useState(false)
  const [paused, setPaused] = useState(false)
  const width = useWindowWidth()
  const variant = VARIANTS[width !== null && width < MOBILE_BREAKPOINT_PX ? 'mobile' : 'desktop']
  // Read in an effect: the server cannot know the visitor's preferences.
  useEffect(() => (prefersStillBackground() ? undefined : afterPageSettles(() => setLoadVideo(true))), [])

  return (
    <>
      <div className='background'>
        {loadVideo
          ? (
            <video key={variant.mp4} className='background__media' aria-hidden='true' poster={variant.poster} muted loop playsInline autoPlay={!paused}
              ref={(video) => { if (video !== null) { video.muted = true; if (paused) video.pause(); else void video.play().catch(() => {}) } }}>
              <source src={variant.webm} type='video/webm' />
              <source src={variant.mp4} type='video/mp4' />
            </video>
            )
          : (
            <picture>
              <source media={MOBILE_MEDIA_QUERY} srcSet={VARIANTS.mobile.poster} />
              <img className='background__media' src={VARIANTS.desktop.poster} alt='' />
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
