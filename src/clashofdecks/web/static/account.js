// Identities: the guest a first visit gets, the optional account, and the account page (/account).
// The session is an HttpOnly cookie: this page never sees it, it only asks the server who it is.
import { api, postJson } from "./api.js";
import { h } from "./dom.js";
import { currentView, go, mount, stillShowing } from "./page.js";
import { closeSocket } from "./socket.js";
import { state } from "./store.js";
import { failText, t } from "./words.js";

// A first visit gets a guest identity (no sign-up to play); a browser of the former release is
// recognised by /api/me once.  If the server refuses (too many new identities from this address),
// the page still opens: games can be watched without an identity.
export async function ensureIdentity() {
  try {
    state.me = await api("/api/me");
    if (!state.me.identity) state.me = await postJson("/api/identities", {});
  } catch (e) {
    state.me = { identity: null, error: e.message };
  }
}

export async function saveDisplayName(value) {
  state.me = await postJson("/api/me", { display_name: value.trim() });
}

// Invite links this browser kept for its duels: spent once the person who made them leaves.
function forgetInvites() {
  for (const key of Object.keys(localStorage)) if (key.startsWith("clash.invite.") || key.startsWith("clash.tokens.")) localStorage.removeItem(key);
}

function field(testid, type, label, autocomplete) {
  const input = h("input", { type, "data-testid": testid, autocomplete, required: true, maxlength: type === "password" ? "256" : "32" });
  return [input, h("label", { class: "row" }, h("span", {}, label), input)];
}

function identitySection(me, run, redraw) {
  const nameInput = h("input", { "data-testid": "display-name", maxlength: "40", value: me.display_name, "aria-label": t("display_name") });
  const signOut = me.account ? h("button", { "data-testid": "logout", onclick: run(async () => {
    await postJson("/api/account/logout", {});
    forgetInvites();
    await ensureIdentity();  // a new guest: the account's games stay with the account
    redraw(t("logged_out"));
  }) }, t("logout")) : null;
  return h("section", { class: "panel", "data-testid": "identity" },
    h("h2", {}, me.account ? t("signed_in_as", { name: me.username }) : t("guest_title")),
    h("p", {}, t("handle") + ": ", h("code", { "data-testid": "handle" }, me.identity)),
    handleForm(me, run, redraw),
    h("form", { class: "row", onsubmit: run(async () => { await saveDisplayName(nameInput.value); redraw(t("saved")); }) },
      h("label", {}, t("display_name"), " ", nameInput), h("button", { type: "submit", "data-testid": "save-name" }, t("save"))),
    signOut);
}

// The recovery codes of the account just made: shown on this page until the player says they are
// saved, never asked of the server again (it keeps only their hashes).
let recoveryCodes = null;

function recoverySection(redraw) {
  return h("section", { class: "panel", "data-testid": "recovery-codes" }, h("h2", {}, t("recovery_title")),
    h("p", {}, t("recovery_note")),
    h("ul", {}, ...recoveryCodes.map((code) => h("li", {}, h("code", {}, code)))),
    h("button", { type: "button", onclick: () => { recoveryCodes = null; redraw(); } }, t("recovery_done")));
}

// New codes for an account whose codes were used or lost: the password again, then the codes are
// shown as at sign-up, and the old ones stop working.
function newCodesSection(run, redraw) {
  const [pw, pwRow] = field("codes-password", "password", t("password_plain"), "current-password");
  return h("section", { class: "panel" }, h("h2", {}, t("recovery_new_title")), h("p", { class: "muted" }, t("recovery_new_note")),
    h("form", { onsubmit: run(async () => {
      const { recovery_codes: codes, ...me } = await postJson("/api/account/recovery-codes", { password: pw.value });
      state.me = me;
      recoveryCodes = codes || null;
      redraw();
    }) }, pwRow, h("button", { type: "submit", "data-testid": "new-recovery-codes" }, t("recovery_new"))));
}

function forgotSection(run, redraw) {
  const [user, userRow] = field("recover-username", "text", t("username"), "username");
  const [code, codeRow] = field("recover-code", "text", t("recovery_code"), "off");
  const [pw, pwRow] = field("recover-password", "password", t("new_password"), "new-password");
  pw.setAttribute("minlength", "8");
  return h("section", { class: "panel" }, h("h2", {}, t("forgot_title")),
    h("form", { onsubmit: run(async () => {
      const body = await postJson("/api/account/recover", { username: user.value, code: code.value, new_password: pw.value });
      state.me = body;
      redraw(t("password_reset_done", { n: body.recovery_codes_left }));
    }) }, userRow, codeRow, pwRow, h("button", { type: "submit", "data-testid": "recover" }, t("reset_password"))));
}

// An account chooses its public handle once (the generated guest-… handle until then).
function handleForm(me, run, redraw) {
  if (!me.account || !String(me.identity).startsWith("guest-")) return null;
  const input = h("input", { id: "choose-handle", "data-testid": "choose-handle", maxlength: "32", autocomplete: "off" });
  return h("form", { class: "row", onsubmit: run(async () => {
    state.me = await postJson("/api/me/handle", { handle: input.value.trim().toLowerCase() });
    redraw(t("saved"));
  }) },
  h("label", { for: "choose-handle" }, t("choose_handle")), input,
  h("button", { type: "submit", "data-testid": "save-handle" }, t("choose_handle_save")),
  h("p", { class: "muted" }, t("choose_handle_note")));
}

function registerSection(run, redraw) {
  const [user, userRow] = field("register-username", "text", t("username"), "username");
  const [pw, pwRow] = field("register-password", "password", t("password"), "new-password");
  pw.setAttribute("minlength", "8");
  return h("section", { class: "panel" }, h("h2", {}, t("make_account")),
    h("p", { "data-testid": "guest-warning" }, t("guest_note")),
    h("form", { onsubmit: run(async () => {
      const { recovery_codes: codes, ...me } = await postJson("/api/account/register", { username: user.value, password: pw.value });
      state.me = me;
      recoveryCodes = codes || null;
      redraw();
    }) }, userRow, pwRow, h("button", { type: "submit", class: "primary", "data-testid": "register" }, t("register"))));
}

function signInSection(run, redraw) {
  const [user, userRow] = field("login-username", "text", t("username"), "username");
  const [pw, pwRow] = field("login-password", "password", t("password_plain"), "current-password");
  return h("section", { class: "panel" }, h("h2", {}, t("sign_in")), h("p", { class: "muted" }, t("sign_in_note")),
    h("form", { onsubmit: run(async () => {
      state.me = await postJson("/api/account/login", { username: user.value, password: pw.value });
      redraw();
    }) }, userRow, pwRow, h("button", { type: "submit", class: "primary", "data-testid": "login" }, t("sign_in"))));
}

// An account of the person's own becomes their bot before its first game (docs/web.md, "Bots"):
// its token is shown this once, for clash bot --server.
let botToken = null;

function botSection(run, redraw) {
  const [user, userRow] = field("bot-username", "text", t("bot_username"), "off");
  const [pw, pwRow] = field("bot-password", "password", t("bot_password"), "off");
  const shown = botToken ? h("div", { "data-testid": "bot-token" }, h("p", {}, t("bot_token_note", { handle: botToken.handle })),
    h("p", {}, h("code", { class: "token" }, botToken.session)),
    h("button", { type: "button", onclick: () => { botToken = null; redraw(); } }, t("recovery_done"))) : null;
  return h("section", { class: "panel", "data-testid": "bot-accounts" }, h("h2", {}, t("bot_section_title")),
    h("p", { class: "muted" }, t("bot_section_note")), shown,
    h("form", { onsubmit: run(async () => {
      const body = await postJson("/api/bots", { username: user.value, password: pw.value });
      botToken = { handle: body.identity, session: body.session };
      redraw();
    }) }, userRow, pwRow, h("button", { type: "submit", "data-testid": "mark-bot" }, t("bot_mark"))));
}

function deleteSection(me, run, view) {
  const [pw, pwRow] = field("delete-password", "password", t("password_plain"), "current-password");
  return h("section", { class: "panel" }, h("h2", {}, t("delete_account")), h("p", { class: "muted" }, t("delete_note")),
    h("form", { onsubmit: run(async () => {
      if (!confirm(t("confirm_delete"))) return;
      await postJson("/api/account/delete", me.account ? { password: pw.value } : {});
      forgetInvites();
      state.me = { identity: null };
      await ensureIdentity();
      if (stillShowing(view)) go("/");
    }) }, me.account ? pwRow : null, h("button", { type: "submit", class: "danger", "data-testid": "delete-account" }, t("delete_account"))));
}

export function accountPage(notice) {
  closeSocket();
  // A button's answer redraws this page only if the player is still on it (a late answer must not
  // cover the page the player went to meanwhile; the change itself is kept, in state.me).
  const view = currentView();
  const redraw = (text) => { if (stillShowing(view)) accountPage(text); };
  const me = state.me || { identity: null };
  const status = h("p", { class: "muted", role: "status", "data-testid": "account-status" }, notice || "");
  const err = h("p", { class: "error", role: "alert", "data-testid": "account-error" });
  // A refusal is said in the form that was sent (on a phone the page's foot is out of sight).
  const run = (fn) => async (e) => {
    if (e) e.preventDefault();
    err.textContent = ""; status.textContent = "";
    document.querySelectorAll("[data-testid=form-error]").forEach((el) => el.remove());
    const form = e && e.target instanceof HTMLFormElement ? e.target : null;
    try { await fn(); } catch (x) {
      if (!stillShowing(view)) return;
      if (form && form.isConnected) {
        const line = h("p", { class: "error", role: "alert", "data-testid": "form-error" }, failText(x));
        form.append(line);
        line.scrollIntoView({ block: "nearest" });
      } else err.textContent = failText(x);
    }
  };
  const sections = [];
  if (!me.identity) sections.push(h("section", { class: "panel" }, h("p", {}, t("no_identity")), err));
  else sections.push(identitySection(me, run, redraw));
  if (me.identity && !me.account) sections.push(registerSection(run, redraw));
  if (me.account && recoveryCodes) sections.push(recoverySection(redraw));
  else if (me.account) sections.push(newCodesSection(run, redraw));
  if (me.account && !me.bot) sections.push(botSection(run, redraw));
  if (!me.account) sections.push(signInSection(run, redraw), forgotSection(run, redraw));
  if (me.identity) sections.push(deleteSection(me, run, view));
  mount(h("main", { class: "lobby account", "data-testid": "account-page" }, ...sections, status, err));
}
