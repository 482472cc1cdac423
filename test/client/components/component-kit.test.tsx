import '../../fixtures/page/dom.js'
import { act, cleanup, render, screen } from '@testing-library/react'
import { userEvent } from '@testing-library/user-event'
import { useState } from 'react'
import t from 'tap'
import { Button } from '../../../client/components/Button.js'
import { CopyButton } from '../../../client/components/CopyButton.js'
import { InLanguage } from '../../fixtures/languages/messages.js'
import { Modal } from '../../../client/components/Modal.js'
import { Spinner } from '../../../client/components/Spinner.js'
import { TextField } from '../../../client/components/TextField.js'
import { Tooltip } from '../../../client/components/Tooltip.js'
import { DESIGN_TOKENS, MODAL_WIDTHS_PX, SPINNER_TURN_MS } from '../../../client/components/constants.js'

t.afterEach(() => cleanup())
const sleep = (ms: number) => act(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

function Field (props: { multiline?: boolean, onSubmit?: () => void, onFinishedTyping?: (value: string) => void, width?: 'default' | 'long' | 'full' }) {
  const [value, setValue] = useState('')
  return <TextField label='Name' value={value} onChange={setValue} {...props} />
}

t.test('the text field calls back once typing has paused for one second', async (t) => {
  const finished: string[] = []
  const user = userEvent.setup()
  render(<Field onFinishedTyping={(value) => finished.push(value)} />)
  await user.type(screen.getByLabelText('Name'), 'abc')
  await sleep(700)
  t.same(finished, [], 'not before a second has passed')
  await sleep(500)
  t.same(finished, ['abc'], 'once, with the final value')
})

t.test('Enter submits a single-line field, Ctrl/Cmd+Enter a multi-line one, Escape leaves the field', async (t) => {
  const user = userEvent.setup()
  let submitted = 0
  render(<Field onSubmit={() => submitted++} />)
  await user.type(screen.getByLabelText('Name'), 'x{Enter}')
  t.equal(submitted, 1)
  cleanup()

  render(<Field multiline onSubmit={() => submitted++} />)
  const area = screen.getByLabelText<HTMLTextAreaElement>('Name')
  await user.type(area, 'line one{Enter}line two')
  t.equal(submitted, 1, 'Enter makes a new line')
  t.equal(area.value, 'line one\nline two')
  await user.keyboard('{Control>}{Enter}{/Control}')
  t.equal(submitted, 2, 'Ctrl+Enter submits')
  await user.keyboard('{Meta>}{Enter}{/Meta}')
  t.equal(submitted, 3, 'Cmd+Enter submits')
  t.equal(document.activeElement, area)
  await user.keyboard('{Escape}')
  t.not(document.activeElement, area, 'Escape blurs')
})

t.test('the text field is 200 px wide by default and 500 px in its long variant', async (t) => {
  t.equal(DESIGN_TOKENS['--field-width'], '200px')
  t.equal(DESIGN_TOKENS['--field-long-width'], '500px')
  const { container } = render(<><Field /><Field width='long' /></>)
  const fields = container.querySelectorAll('.field')
  t.ok(fields[0]!.classList.contains('field--default'))
  t.ok(fields[1]!.classList.contains('field--long'))
})

t.test('a busy button is disabled and shows a 14 px spinner; a disabled one has its own look', async (t) => {
  render(<><Button busy>Save</Button><Button disabled>Later</Button><Button>Now</Button></>)
  const save = screen.getByRole('button', { name: 'Save' })
  t.ok(save.hasAttribute('disabled'))
  t.equal(save.getAttribute('aria-busy'), 'true')
  const spinner = save.querySelector('.spinner') as HTMLElement
  t.ok(spinner.classList.contains('spinner--small'), 'the 14 px spinner (--button-spinner-size)')
  t.equal(DESIGN_TOKENS['--button-spinner-size'], '14px')
  t.ok(screen.getByRole('button', { name: 'Later' }).hasAttribute('disabled'))
  t.notOk(screen.getByRole('button', { name: 'Now' }).hasAttribute('disabled'))
  t.equal(screen.getByRole('button', { name: 'Now' }).querySelector('.spinner'), null)
})

t.test('the spinner is 24 px by default and turns once a second', async (t) => {
  const { container } = render(<Spinner />)
  const spinner = container.querySelector('.spinner') as HTMLElement
  t.notOk(spinner.classList.contains('spinner--small'))
  t.equal(spinner.getAttribute('style'), null, 'sized by the stylesheet: no style attribute, which the CSP would refuse')
  t.equal(DESIGN_TOKENS['--spinner-size'], '24px')
  t.equal(SPINNER_TURN_MS, 1000)
  t.equal(DESIGN_TOKENS['--spinner-turn'], '1000ms')
})

t.test('the modal comes in the spec\'s sizes over a layer-999 overlay', async (t) => {
  t.same(MODAL_WIDTHS_PX, { medium: 450, large: 850, xlarge: 1000 })
  t.equal(DESIGN_TOKENS['--overlay-layer'], '999')
  for (const size of ['medium', 'large', 'xlarge', 'fit-content'] as const) {
    render(<Modal title={size} onClose={() => {}} size={size}><p>body</p></Modal>)
    t.ok(screen.getByRole('dialog', { name: size }).classList.contains(`modal--${size}`), size)
    cleanup()
  }
})

t.test('an interactive tooltip stays 400 ms after the pointer leaves; Escape dismisses it', async (t) => {
  t.equal(DESIGN_TOKENS['--tooltip-max-width'], '300px')
  t.equal(DESIGN_TOKENS['--tooltip-layer'], '1001')
  const user = userEvent.setup()
  render(<Tooltip content='More about this' interactive><button type='button'>Info</button></Tooltip>)
  const trigger = screen.getByRole('button', { name: 'Info' })
  await user.hover(trigger)
  t.equal(screen.getByRole('tooltip').textContent, 'More about this')
  t.equal(trigger.getAttribute('aria-describedby'), screen.getByRole('tooltip').id)
  await user.unhover(trigger)
  await sleep(250)
  t.ok(screen.queryByRole('tooltip'), 'still there after 250 ms')
  await sleep(250)
  t.ok(screen.queryByRole('tooltip') === null, 'gone after 400 ms')
  await user.tab()
  t.ok(screen.getByRole('tooltip'), 'keyboard focus shows it too')
  await user.keyboard('{Escape}')
  t.ok(screen.queryByRole('tooltip') === null, 'Escape dismisses it')
})

t.test('a plain tooltip goes as soon as the pointer leaves', async (t) => {
  const user = userEvent.setup()
  render(<Tooltip content='Hint'><button type='button'>Help</button></Tooltip>)
  await user.hover(screen.getByRole('button', { name: 'Help' }))
  await user.unhover(screen.getByRole('button', { name: 'Help' }))
  t.ok(screen.queryByRole('tooltip') === null)
})

t.test('the copy button copies and says so for one second', async (t) => {
  const user = userEvent.setup()
  render(<InLanguage><CopyButton text='support@example.com' label='Copy the support address' /></InLanguage>)
  await user.click(screen.getByRole('button', { name: 'Copy the support address' }))
  t.equal(await navigator.clipboard.readText(), 'support@example.com')
  t.equal(screen.getByRole('tooltip').textContent, 'Copied')
  await sleep(800)
  t.equal(screen.getByRole('tooltip').textContent, 'Copied')
  await sleep(400)
  t.ok(screen.queryByText('Copied') === null, 'the feedback is gone after a second')
  t.equal(screen.getByRole('tooltip').textContent, 'Copy the support address', 'the hovered button shows its label again')
})
