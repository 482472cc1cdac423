/*
 * The second factor's texts (docs/second-factor.md): the code step, the
 * enrolment and the offer after a login. Beside client/lib/messages.ts, not
 * in it, because they load with the second-factor chunks: in messages.ts they
 * would be on every first load (the budget, test/build/bundle-budget.test.ts).
 */

/** The second factor (docs/second-factor.md): the code step, the enrolment and the offer after a login. */
export const SECOND_FACTOR_MESSAGES = Object.freeze({
  CODE_HEADING: 'Enter your authenticator code',
  CODE_EXPLANATION: 'Open your authenticator app and enter the 6-digit code it shows for this account.',
  CODE_LABEL: 'Authenticator code',
  RECOVERY_EXPLANATION: 'Enter one of the recovery codes you saved when you set up your authenticator. Each works once.',
  RECOVERY_LABEL: 'Recovery code',
  USE_RECOVERY: 'Use a recovery code instead',
  USE_CODE: 'Use an authenticator code instead',
  VERIFY: 'Verify',
  CODE_INCOMPLETE: 'Enter the 6-digit code your authenticator app shows.',
  REMEMBER_BROWSER: "Don't ask again on this browser for 30 days",
  BACK: 'Back to login',
  ENROL_HEADING: 'Set up an authenticator app',
  ENROL_REQUIRED: 'Your account needs a second factor. Scan the QR code with an authenticator app, then enter the code it shows.',
  ENROL_EXPLANATION: 'Scan the QR code with an authenticator app, then enter the code it shows.',
  QR_LABEL: 'QR code to scan with your authenticator app',
  KEY_INTRO: 'Cannot scan it? Enter this key in the app instead:',
  COPY_KEY: 'Copy the key',
  FIRST_CODE_LABEL: 'Code from the app',
  CONFIRM: 'Confirm',
  STARTING: 'Preparing your authenticator key…',
  CODES_HEADING: 'Save your recovery codes',
  CODES_EXPLANATION: 'If you lose your authenticator, each of these codes signs you in once. They are shown only now.',
  COPY_CODES: 'Copy the recovery codes',
  DOWNLOAD_CODES: 'Download',
  CODES_SAVED: 'I have saved these codes',
  CONTINUE: 'Continue',
  OFFER_HEADING: 'Add a second factor',
  OFFER_EXPLANATION: 'Protect your account with a code from an authenticator app when you sign in with your password.',
  OFFER_ACCEPT: 'Add a second factor',
  NOT_NOW: 'Not now'
})
