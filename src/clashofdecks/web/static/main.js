// Clash of Decks in the browser: the page's one module script (index.html), which imports the others.
// ES modules as they are, no build step.  The server is the only judge: this page shows the frames it
// receives and sends action text.
import { accountPage, ensureIdentity } from "./account.js";
import { loadCatalogue } from "./api.js";
import { listenForCardHelp } from "./cardhelp.js";
import { gamePage, listenForGameKeys } from "./game.js";
import { lobbyPage } from "./lobby.js";
import { go, notFoundPage, route, setPages } from "./page.js";
import { leaderboardPage, playerPage } from "./ratings.js";
import { puzzlePage } from "./puzzle.js";
import { replayPage } from "./replay.js";
import { rulesPage } from "./rules.js";
import { newTournamentPage, tournamentPage } from "./tournament.js";
import { listenForTutorialKeys, tutorialPage } from "./tutorial.js";

setPages({
  game: gamePage, replay: replayPage, rules: rulesPage, tutorial: tutorialPage, account: () => accountPage(),
  leaderboard: leaderboardPage, puzzle: puzzlePage, player: playerPage, lobby: lobbyPage, notfound: notFoundPage,
  tournament: tournamentPage, newtournament: newTournamentPage,
});

listenForGameKeys();
listenForCardHelp();
listenForTutorialKeys();
window.addEventListener("popstate", route);
// A link to another page of the app opens it here, without loading the page again.
document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[href^='/']");
  if (!a || a.hasAttribute("download") || a.getAttribute("href").startsWith("/api/") || e.ctrlKey || e.metaKey) return;
  e.preventDefault();
  go(a.getAttribute("href"));
});

loadCatalogue().then(ensureIdentity).then(route).catch((e) => {
  document.getElementById("app").textContent = "Clash of Decks: " + e.message;
});
