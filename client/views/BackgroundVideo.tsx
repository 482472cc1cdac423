import { useEffect, useState } from 'react'
import desktopPoster from '../media/background-desktop-poster.jpg'
import desktopMp4 from '../media/background-desktop.mp4'
import desktopWebm from '../media/background-desktop.webm'
import mobilePoster from '../media/background-mobile-poster.jpg'
import mobileMp4 from '../media/background-mobile.mp4'
import mobileWebm from '../media/background-mobile.webm'
import { prefersStillBackground } from '../lib/motion-preferences.js'

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
 * Save-Data. The mobile variant plays below 512 px. A visible control pauses
 * it (WCAG 2.2.2: moving content must be stoppable).
 */
export function BackgroundVideo ({ mobile }: { mobile: boolean }) {
  const [still] = useState(prefersStillBackground)
  const [loadVideo, setLoadVideo] = useState(false)
  const [paused, setPaused] = useState(false)
  const variant = VARIANTS[mobile ? 'mobile' : 'desktop']
  useEffect(() => (still ? undefined : afterPageSettles(() => setLoadVideo(true))), [still])

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
          : <img className='background__media' src={variant.poster} alt='' />}
      </div>
      {loadVideo && (
        <button type='button' className='background__control' aria-pressed={paused} onClick={() => setPaused(!paused)}>
          {paused ? 'Play background' : 'Pause background'}
        </button>
      )}
    </>
  )
}
