// The page's socket to the server (/ws) and the messages a player's choices send on it.
import { state } from "./store.js";

export function closeSocket() {
  if (state.ws) { state.ws.onclose = null; state.ws.close(); state.ws = null; }
}

export function send(msg) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(msg));
}

// A legal action's text, for the frame on screen (the server refuses it for any other).
export function act(action) {
  if (state.playing) return;  // the board on screen is older than the game: no choices from it
  state.selected = null; state.order = null;
  // A board that is no game (the puzzle page) takes its own clicks: the frame says where they go.
  if (state.frame && state.frame.onAct) { state.frame.onAct(action); return; }
  send({ type: "act", action, index: state.frame.index });
}

// A new socket to the server, for this page's address (ws: or wss:).
export function openSocket() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return new WebSocket(`${proto}//${location.host}/ws`);
}
