'use strict';
// ag's answer page: the sessions ag-notify sees, live over server-sent
// events; a press goes back as one POST with the page's CSRF token. Every
// text the server sends is put in the document as text (textContent),
// never as markup.
(() => {
  const $ = (id) => document.getElementById(id);
  const list = $('list');
  const views = new Map();    // id → view
  const results = new Map();  // id → {token, text, cls, at}
  const shown = new Map();    // id → browser Notification
  let csrf = '';
  let skew = 0;               // server clock − ours, ms

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function age(since) {
    if (!since) return '';
    const s = Math.max(0, Math.round((Date.now() + skew - Date.parse(since)) / 1000));
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm';
    if (s < 86400) return Math.floor(s / 3600) + 'h' + String(Math.floor(s % 3600 / 60)).padStart(2, '0');
    return Math.floor(s / 86400) + 'd';
  }

  function meters(v) {
    const m = [];
    if (v.model) m.push(v.model);
    if (v.context_pct) m.push('context ' + v.context_pct + '%');
    if (v.tokens) m.push((v.tokens >= 1e6 ? (v.tokens / 1e6).toFixed(1) + 'M' : v.tokens >= 1e3 ? Math.round(v.tokens / 1e3) + 'k' : v.tokens) + ' tokens');
    if (v.cost) m.push('$' + v.cost.toFixed(2));
    if (v.limit) m.push(v.limit);
    return m.join(' · ');
  }

  // A keys event is final: the answer to a press, which may come back
  // before the press's own response does.
  function setResult(id, token, text, cls, final) {
    const cur = results.get(id);
    if (!final && cur && cur.final && cur.token === token) return;
    results.set(id, {token, text, cls, at: Date.now(), final: !!final});
    const card = $('s-' + id);
    if (card) {
      const r = card.querySelector('.result');
      r.textContent = text;
      r.className = 'result ' + cls;
    }
  }

  async function press(v, button, text) {
    const card = $('s-' + v.id);
    card.querySelectorAll('button, input').forEach((b) => { b.disabled = true; });
    results.delete(v.id);
    setResult(v.id, v.token, 'Sending…', 'pending');
    try {
      const r = await fetch('/api/press', {method: 'POST', credentials: 'same-origin',
        headers: {'Content-Type': 'application/json', 'X-AG-CSRF': csrf},
        body: JSON.stringify({id: v.id, token: v.token, button, text: text || ''})});
      const j = await r.json().catch(() => ({}));
      if (r.ok) setResult(v.id, v.token, j.pressed + ': sent — waiting for ag-keys…', 'pending');
      else setResult(v.id, v.token, 'Refused: ' + (j.error || r.status), 'refused');
    } catch (e) {
      setResult(v.id, v.token, 'Not sent: ' + e, 'error');
    }
    render(views.get(v.id));
  }

  function render(v) {
    if (!v) return;
    let card = $('s-' + v.id);
    const fresh = el('article', 's ' + v.status + (v.stale ? ' stale' : ''));
    fresh.id = 's-' + v.id;
    fresh.dataset.status = v.status;
    fresh.dataset.token = v.token || '';
    const h = el('header');
    h.append(el('span', 'agent', v.name),
      el('span', 'where', v.project + (v.branch ? ':' + v.branch : '') + (v.host ? ' @' + v.host : '')),
      el('time', 'age', age(v.since)));
    fresh.append(h, el('div', 'sub', v.stale ? v.subtitle + ' — ' + v.stale : v.subtitle));
    if (v.text) fresh.append(el('pre', 'text', v.text));
    const m = meters(v);
    if (m) fresh.append(el('div', 'meters', m));
    const answered = !!v.pressed;
    if (v.buttons && v.buttons.length) {
      const bs = el('div', 'buttons');
      for (const b of v.buttons) {
        const btn = el('button', 'b ' + (b.id.startsWith('option-') ? 'option' : b.id), b.label);
        btn.dataset.b = b.id;
        btn.disabled = answered;
        btn.addEventListener('click', () => press(v, b.id));
        bs.append(btn);
      }
      fresh.append(bs);
    }
    if (v.reply) {
      const f = el('form', 'reply');
      const inp = el('input');
      inp.name = 'text';
      inp.placeholder = v.reply === 'answer' ? 'Answer…' : 'Reply…';
      inp.autocomplete = 'off';
      inp.disabled = answered;
      const send = el('button', 'send', 'Send');
      send.type = 'submit';
      send.disabled = answered;
      f.append(inp, send);
      f.addEventListener('submit', (e) => {
        e.preventDefault();
        if (inp.value.trim()) press(v, 'reply', inp.value);
      });
      fresh.append(f);
    }
    const res = el('div', 'result');
    res.setAttribute('role', 'status');
    const r = results.get(v.id);
    if (r && (r.token === v.token || Date.now() - r.at < 60000)) {
      res.textContent = r.text;
      res.className = 'result ' + r.cls;
    }
    fresh.append(res);
    if (card) {
      // Keep a reply being typed.
      const old = card.querySelector('.reply input');
      const now = fresh.querySelector('.reply input');
      if (old && now && old.value && card.dataset.token === fresh.dataset.token) now.value = old.value;
      card.replaceWith(fresh);
    } else {
      list.append(fresh);
    }
  }

  // Waiting first, the longest wait at the top; then the rest, the
  // latest change first.
  const rank = {waiting: 0, failed: 1, done: 2, idle: 3, working: 4};
  function order() {
    const vs = [...views.values()].sort((a, b) => (rank[a.status] ?? 5) - (rank[b.status] ?? 5) ||
      (a.status === 'waiting' ? 1 : -1) * (a.since || '').localeCompare(b.since || '') || a.id.localeCompare(b.id));
    vs.forEach((v) => { const c = $('s-' + v.id); if (c) list.append(c); });
    $('empty').hidden = views.size > 0;
    const waiting = vs.filter((v) => v.status === 'waiting').length;
    document.title = waiting ? '(' + waiting + ') ag' : 'ag';
  }

  function notifyOn() {
    return 'Notification' in window && Notification.permission === 'granted';
  }

  function connect() {
    const es = new EventSource('/api/events');
    const live = $('live');
    es.addEventListener('open', () => { live.textContent = 'live'; live.className = 'live on'; });
    es.addEventListener('error', () => { live.textContent = 'reconnecting…'; live.className = 'live'; });
    es.addEventListener('snapshot', (e) => {
      const d = JSON.parse(e.data);
      skew = Date.parse(d.now) - Date.now();
      views.clear();
      list.replaceChildren();
      for (const v of d.sessions) { views.set(v.id, v); render(v); }
      order();
    });
    es.addEventListener('put', (e) => {
      const v = JSON.parse(e.data);
      views.set(v.id, v);
      render(v);
      order();
    });
    es.addEventListener('del', (e) => {
      const {id} = JSON.parse(e.data);
      views.delete(id);
      const c = $('s-' + id);
      if (c) c.remove();
      order();
    });
    es.addEventListener('keys', (e) => {
      const k = JSON.parse(e.data);
      const what = k.status === 'sent' ? 'Typed' + (k.typed ? ': ' + k.typed : '') + (k.reason ? ' (' + k.reason + ')' : '')
        : (k.status === 'refused' ? 'Refused by ag-keys: ' : 'ag-keys failed: ') + k.reason;
      setResult(k.id, k.token, what, k.status, true);
    });
    es.addEventListener('notify', (e) => {
      const n = JSON.parse(e.data);
      if (!notifyOn() || (document.visibilityState === 'visible' && document.hasFocus())) return;
      const note = new Notification(n.title, {body: n.body, tag: n.id, icon: '/icon-192.png'});
      note.onclick = () => { window.focus(); const c = $('s-' + n.id); if (c) c.scrollIntoView(); };
      shown.set(n.id, note);
    });
    es.addEventListener('retract', (e) => {
      const {id} = JSON.parse(e.data);
      const note = shown.get(id);
      if (note) { note.close(); shown.delete(id); }
    });
    es.addEventListener('revoked', () => {
      es.close();
      list.replaceChildren();
      live.textContent = 'revoked';
      $('unpaired').hidden = false;
      $('devices').hidden = true;
    });
  }

  function devices(me) {
    const ul = $('devlist');
    ul.replaceChildren();
    for (const d of me.devices) {
      const li = el('li', '', d.name + (d.id === me.device ? ' (this browser)' : '') + ' · paired ' + d.paired.slice(0, 10) + ' ');
      li.dataset.device = d.id;
      const b = el('button', 'small revoke', 'Revoke');
      b.addEventListener('click', async () => {
        const r = await fetch('/api/revoke', {method: 'POST', credentials: 'same-origin',
          headers: {'Content-Type': 'application/json', 'X-AG-CSRF': csrf}, body: JSON.stringify({id: d.id})});
        if (r.ok) li.remove();
      });
      li.append(b);
      ul.append(li);
    }
    $('devices').hidden = false;
  }

  $('paircode').addEventListener('click', async () => {
    const r = await fetch('/api/pair-code', {method: 'POST', credentials: 'same-origin', headers: {'X-AG-CSRF': csrf}});
    const j = await r.json().catch(() => ({}));
    if (!r.ok) return;
    $('pairqr').src = j.qr;
    $('pairurl').textContent = j.url;
    $('pairexp').textContent = 'One use, until ' + new Date(j.expires).toLocaleTimeString();
    $('pairbox').hidden = false;
  });

  const bell = $('bell');
  if ('Notification' in window && Notification.permission === 'default') {
    bell.hidden = false;
    bell.addEventListener('click', async () => {
      await Notification.requestPermission();
      bell.hidden = Notification.permission !== 'default';
    });
  }

  setInterval(() => {
    for (const v of views.values()) {
      const c = $('s-' + v.id);
      if (c) c.querySelector('.age').textContent = age(v.since);
    }
  }, 10000);

  (async () => {
    const r = await fetch('/api/me', {credentials: 'same-origin'});
    if (r.status === 401) {
      $('unpaired').hidden = false;
      $('live').textContent = 'not paired';
      return;
    }
    const me = await r.json();
    csrf = me.csrf;
    devices(me);
    connect();
  })();
})();
