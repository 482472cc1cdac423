// What two or more of the opening views share (client/SignInPage.tsx viewParts), reached from the page's
// start so that it is in the first load's one chunk (build/first-load-chunk.mjs). The views themselves are
// chunks, each the entry point of its own: a module only they reach would otherwise be a chunk for each
// set of views that uses it, a request of a few hundred bytes each before the view can hydrate
// (test/build/bundle-budget.integration.test.ts holds each view's first load to the entry's chunk and its own).
import '../components/FormName.js'
import '../components/PasswordField.js'
import '../components/TextField.js'
import '../no-script/NeedsScript.js'
import '../sign-in/AlternativeMethods.js'
import './ViewLink.js'
