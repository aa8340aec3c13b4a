// modal-dialog: q3-report-draft.docx deleted, every other file kept.
import { readState, writeReward } from './grade-kit.mjs';

const { files } = await readState();
const expected = ['budget-2026.xlsx', 'q3-report-final.docx', 'team-photo.jpg', 'travel-policy.pdf'];
writeReward([{ name: 'only q3-report-draft.docx deleted', pass: JSON.stringify(files) === JSON.stringify(expected), detail: JSON.stringify(files) }]);
