// Cloud Files: a file list behind a cookie overlay; deleting asks for confirmation in a modal dialog
// where the file's name must be typed.
import { BadRequest, html, page, startSite } from './kit/site.mjs';

const SITE = 'Cloud Files';
const FILES = ['budget-2026.xlsx', 'q3-report-draft.docx', 'q3-report-final.docx', 'team-photo.jpg', 'travel-policy.pdf'];

const SCRIPT = `
const modal = document.getElementById('modal');
const confirmInput = document.getElementById('confirm-name');
const confirmButton = document.getElementById('confirm-delete');
let pending = null;
document.querySelectorAll('button[data-file]').forEach((b) => b.onclick = () => {
  pending = b.dataset.file;
  document.getElementById('modal-file').textContent = pending;
  confirmInput.value = ''; confirmButton.disabled = true;
  modal.hidden = false; confirmInput.focus();
});
confirmInput.oninput = () => { confirmButton.disabled = confirmInput.value.trim() !== pending; };
document.getElementById('cancel').onclick = () => { modal.hidden = true; pending = null; };
confirmButton.onclick = async () => { await kit.post('/api/files/delete', { name: pending }); location.href = '/files?deleted=' + encodeURIComponent(pending); };
document.getElementById('accept-cookies').onclick = async () => { await kit.post('/api/cookies', { choice: 'accept' }); document.getElementById('cookies').remove(); };
document.getElementById('reject-cookies').onclick = async () => { await kit.post('/api/cookies', { choice: 'reject' }); document.getElementById('cookies').remove(); };
`;

startSite({
  name: SITE,
  initialState: { files: FILES, cookie_choice: null },
  routes: {
    'GET /': () => ({ redirect: '/files' }),
    'GET /files': ({ state, query }) =>
      page({
        site: SITE,
        title: 'Files',
        style: '.file{display:flex;align-items:center;height:56px;width:720px;padding:0 16px;background:#fff;border:1px solid #d0d7de;margin-bottom:-1px}.file span{flex:1}.overlay{position:fixed;inset:0;background:rgba(0,0,0,.55);display:flex;align-items:center;justify-content:center}.overlay[hidden]{display:none}.dialog{width:560px;height:260px;background:#fff;border-radius:10px;padding:24px}.dialog .row{justify-content:flex-end;margin-top:16px}',
        body: html`<h1>My files</h1>
${query.get('deleted') ? html`<div class="notice">Deleted ${query.get('deleted')}.</div>` : ''}
${state.files.map((f) => html`<div class="file"><span>${f}</span><button class="small danger" data-file="${f}">Delete</button></div>`)}
<div id="modal" class="overlay" hidden><div class="dialog" role="dialog" aria-modal="true" aria-labelledby="modal-title">
<h2 id="modal-title">Delete this file?</h2>
<p><b id="modal-file"></b> will be deleted for good.</p>
<p>Type the file name to confirm:</p>
<input id="confirm-name" type="text" aria-label="File name to confirm" style="width:512px">
<div class="row"><button id="cancel">Cancel</button><button id="confirm-delete" class="danger" disabled>Delete file</button></div>
</div></div>
${state.cookie_choice ? '' : html`<div id="cookies" class="overlay"><div class="dialog" role="dialog" aria-modal="true" aria-labelledby="cookie-title" style="height:200px">
<h2 id="cookie-title">We use cookies</h2><p>Cloud Files uses cookies to keep you signed in.</p>
<div class="row"><button id="reject-cookies">Reject all</button><button id="accept-cookies" class="primary">Accept all</button></div></div></div>`}`,
        script: SCRIPT,
      }),
    'POST /api/files/delete': ({ state, body }) => {
      if (!state.files.includes(body.name)) throw new BadRequest(`no file named "${body.name}"`);
      state.files = state.files.filter((f) => f !== body.name);
      return { json: { files: state.files } };
    },
    'POST /api/cookies': ({ state, body }) => {
      if (body.choice !== 'accept' && body.choice !== 'reject') throw new BadRequest('choice must be "accept" or "reject"');
      state.cookie_choice = body.choice;
      return { json: { ok: true } };
    },
  },
});
