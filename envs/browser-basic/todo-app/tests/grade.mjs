// todo-app: "Book dentist appointment" added (open), "Call the plumber" done, "Buy milk" deleted; the rest untouched.
import { readState, sameText, writeReward } from './grade-kit.mjs';

const { todos } = await readState();
const find = (text) => todos.filter((t) => sameText(t.text, text));
const untouched = find('Renew passport').length === 1 && !find('Renew passport')[0].done && find('Water the plants').length === 1 && find('Water the plants')[0].done;
writeReward(
  [
    {
      name: 'one open "Book dentist appointment" added, other items untouched',
      pass: find('Book dentist appointment').length === 1 && !find('Book dentist appointment')[0].done && untouched && todos.length === 4,
      detail: JSON.stringify(todos.map((t) => `${t.done ? '[x]' : '[ ]'} ${t.text}`)),
    },
    { name: '"Call the plumber" is done', pass: find('Call the plumber').length === 1 && find('Call the plumber')[0].done },
    { name: '"Buy milk" is deleted', pass: find('Buy milk').length === 0 },
  ],
  'partial',
);
