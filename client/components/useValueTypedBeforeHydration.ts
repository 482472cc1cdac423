import { useLayoutEffect } from 'react'

/**
 * Takes into the state what was typed or autofilled in a server-rendered
 * field before the page hydrated: React keeps the element's value then but
 * sends no change, so the state (and a submit) would still hold the rendered
 * value. `id` is the field's element id; runs once, at mount.
 */
export function useValueTypedBeforeHydration (id: string, value: string, onChange: (value: string) => void): void {
  useLayoutEffect(() => {
    const typed = (document.getElementById(id) as HTMLInputElement | null)?.value ?? value
    if (typed !== value) onChange(typed)
    // Only the value found at mount matters: later changes come through onChange.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, at mount (above)
  }, [])
}
