// multi-step-form: one submitted application for Priya Raman, Plus plan, Canada.
import { readState, sameText, writeReward } from './grade-kit.mjs';

const state = await readState();
const app = state.applications.length === 1 ? state.applications[0] : undefined;
writeReward(
  [
    {
      name: 'one application submitted for Priya Raman <priya.raman@example.org>',
      pass: !!app && sameText(app.name, 'Priya Raman') && sameText(app.email, 'priya.raman@example.org'),
      detail: app ? `${app.name} <${app.email}>` : `${state.applications.length} applications`,
    },
    { name: 'plan is Plus', pass: app?.plan === 'plus', detail: app?.plan },
    { name: 'country is Canada', pass: app?.country === 'Canada', detail: app?.country },
  ],
  'partial',
);
