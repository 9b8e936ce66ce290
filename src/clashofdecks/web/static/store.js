// The page's one store: everything the modules share while the page is open.  Every module that reads
// or changes it imports it from here; nothing else is shared between modules.  No DOM: the unit tests
// (tests/js/) import it under Node.
export const state = {
  // The words of the page's language (GET /api/i18n: the catalog's web.* messages, English under them).
  // German names the automaton by a common noun: its forms (the server's glossary, words.js).
  lang: null, languages: [], words: {}, fallback: {}, grammar: {},
  // The card catalogue (/api/cards) and the rules summary in the page's language (/api/rules).
  cards: null, rules: null,
  // Who this browser is (/api/me): the identity, its display name, its account if any.
  me: null,
  // Bumped by each page opened: an answer that comes after another page was opened draws nothing.
  pageView: 0,
  // The game page: its socket, the game, the seat tokens of an invite (presented once, never stored),
  // the rated choice of an invitee, the reconnection count, why the page only watches.
  ws: null, gameId: null, tokens: [], acceptRated: false, retry: 0, watchReason: null,
  // The frame on screen, the frames waiting for their events to play, whether events are playing.
  frame: null, frames: [], animating: false, playing: false,
  // Protocol version 2: the socket's last state, which its next delta applies to (deltas.js), and
  // whether the page has asked for the whole state again (a delta that did not fit it).
  base: null, resyncing: false,
  // What the player is doing: the hand card chosen, the custom deck being built, the return order
  // clicked so far, the hot-seat seat whose hand is shown.
  selected: null, build: null, order: null, shownSeat: undefined,
  // What the game page says: the events so far, the hint, a one-line notice, a rematch offer, the
  // folded game-over box, the open log, the clocks' ticking timer.
  log: [], lastEvent: null, hint: null, notice: null, rematchOffer: null, overFolded: false, logOpen: undefined, clockTimer: null,
  // The card whose help is open, and whether the player is using the keyboard (focus moves for them).
  help: null, keyboardUser: false,
};
