// How a tier is paced to the machine: as package.json says on an idle machine;
// on a busy one the same pace, and a limit stretched by the load.
import t from 'tap'
import { MAX_STRETCH, tierPlan } from '../../../build/test-runner/tier-plan.mjs'

t.test('an idle machine gets the tier\'s own pace and tap\'s limit', async (t) => {
  const plan = tierPlan({ cores: 2, load: 1.4, jobs: 4, timeout: 120 })
  t.same([plan.jobs, plan.timeout], [4, 120])
  t.equal(plan.reason, 'load 1.4 on 2 cores: 4 files at a time, 120 s per file (the machine is not busy)')
  t.same([tierPlan({ cores: 2, load: 2, jobs: 4, timeout: 120 }).jobs, tierPlan({ cores: 2, load: 2, jobs: 4, timeout: 120 }).timeout], [4, 120], 'a load of one a core is not busy')
})

t.test('a busy machine keeps the tier\'s pace, each file with a limit stretched by load per core', async (t) => {
  const plan = tierPlan({ cores: 2, load: 5, jobs: 4, timeout: 120 })
  t.same([plan.jobs, plan.timeout], [4, 300])
  t.equal(plan.reason, 'load 5.0 on 2 cores: 4 files at a time, 300 s per file (the machine is busy: tap\'s 120 s stretched 2.5 times)')
  const integration = tierPlan({ cores: 2, load: 3, jobs: 2, timeout: 120 })
  t.same([integration.jobs, integration.timeout], [2, 180])
  t.same(tierPlan({ cores: 2, load: 2.05, jobs: 4, timeout: 120 }).timeout, 130, 'the limit is rounded up to 10 s')
})

t.test('however high the load, a hanging file still ends within MAX_STRETCH times tap\'s limit', async (t) => {
  const plan = tierPlan({ cores: 2, load: 14, jobs: 4, timeout: 120 })
  t.same([plan.jobs, plan.timeout], [4, 120 * MAX_STRETCH])
  t.match(plan.reason, /^load 14\.0 on 2 cores: 4 files at a time, 480 s per file/)
})
