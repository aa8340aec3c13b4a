// Tidy: a todo list rendered in the browser; every change is saved to the server with a JSON call.
import { BadRequest, html, page, raw, startSite } from './kit/site.mjs';

const SITE = 'Tidy — my todo list';
const INITIAL = [
  { id: 1, text: 'Buy milk', done: false },
  { id: 2, text: 'Call the plumber', done: false },
  { id: 3, text: 'Renew passport', done: false },
  { id: 4, text: 'Water the plants', done: true },
];
const todo = (state, id) => {
  const t = state.todos.find((x) => x.id === Number(id));
  if (!t) throw new BadRequest(`no todo with id ${id}`);
  return t;
};

const SCRIPT = `
const list = document.getElementById('list');
function render(todos) {
  list.replaceChildren(...todos.map((t) => {
    const row = document.createElement('li');
    row.className = t.done ? 'done' : '';
    const box = document.createElement('input');
    box.type = 'checkbox'; box.checked = t.done; box.setAttribute('aria-label', 'Done: ' + t.text);
    box.onchange = async () => render((await kit.post('/api/todos/toggle', { id: t.id })).todos);
    const text = document.createElement('span'); text.textContent = t.text;
    const del = document.createElement('button'); del.className = 'small'; del.textContent = 'Delete';
    del.onclick = async () => render((await kit.post('/api/todos/delete', { id: t.id })).todos);
    row.append(box, text, del);
    return row;
  }));
  document.getElementById('count').textContent = todos.filter((t) => !t.done).length + ' left to do';
}
document.getElementById('add').onsubmit = async (e) => {
  e.preventDefault();
  const input = document.getElementById('new');
  if (!input.value.trim()) return;
  render((await kit.post('/api/todos/add', { text: input.value })).todos);
  input.value = '';
};
render(JSON.parse(document.getElementById('data').textContent));
`;

startSite({
  name: SITE,
  initialState: { todos: INITIAL, nextId: 5 },
  routes: {
    'GET /': ({ state }) =>
      page({
        site: SITE,
        title: 'Todos',
        style: '#list{list-style:none;margin:0;padding:0;width:640px}#list li{display:flex;align-items:center;gap:12px;height:52px;padding:0 12px;background:#fff;border:1px solid #d0d7de;margin-bottom:-1px}#list li span{flex:1;white-space:nowrap;overflow:hidden}#list li.done span{text-decoration:line-through;color:#57606a}#list input{width:20px;height:20px}#add{display:flex;gap:16px;height:56px}',
        body: html`<h1>My todos</h1>
<form id="add"><input id="new" type="text" placeholder="What needs doing?" aria-label="New todo" style="width:464px"><button class="primary" type="submit">Add</button></form>
<ul id="list"></ul>
<p id="count" class="muted" style="margin-top:12px"></p>
<script type="application/json" id="data">${raw(JSON.stringify(state.todos).replace(/</g, '\\u003c'))}</script>`,
        script: SCRIPT,
      }),
    'POST /api/todos/add': ({ state, body }) => {
      const text = String(body.text ?? '').trim();
      if (!text) throw new BadRequest('a todo needs some text');
      state.todos.push({ id: state.nextId++, text, done: false });
      return { json: { todos: state.todos } };
    },
    'POST /api/todos/toggle': ({ state, body }) => {
      const t = todo(state, body.id);
      t.done = !t.done;
      return { json: { todos: state.todos } };
    },
    'POST /api/todos/delete': ({ state, body }) => {
      todo(state, body.id);
      state.todos = state.todos.filter((t) => t.id !== Number(body.id));
      return { json: { todos: state.todos } };
    },
  },
});
