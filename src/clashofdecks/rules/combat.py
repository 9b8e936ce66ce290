"""Combat and the turn: activations (R3.5, R3.6), attacks and Berserk chains (R3.7, R6), damage to
creatures (R3.8, R6.1-R6.5, R6.9) and to players (R4), the end of the game and of the turn (R3.10)."""

from __future__ import annotations

from ..cards import (
    ATTACK,
    BASTION,
    BERSERK,
    CARD_IDS,
    FORT,
    HEALTH,
    INDESTRUCTIBLE,
    PERFORATION,
    PROTECTION,
    RAGE,
    SPLASH,
    SPRINT,
)
from ..events import Event, EventKind
from .core import GameCore
from .state import (
    C_ACTIVATED,
    C_CARD,
    C_DAMAGE,
    C_NEW,
    C_PROTECTED,
    C_SPRINT,
    DRAW,
    OVER,
    SUMMON,
    Creature,
    Termination,
    termination_reason,
)
from .tables import _FRESH, _LANES, _NEXT


class CombatRules(GameCore):
    """Activations, attacks, damage, the game's end and the turn's."""

    __slots__ = ()

    def _activate_next(self) -> bool | None:
        """Activate creatures in order (R3.5) until one attacks.  Returns None when no creature is
        left to activate, False when resolution paused for a decision, True otherwise."""
        p = self._active
        lanes = self._lanes
        for lane in (1, 0) if self._rotated and p == 1 else (0, 1):
            L = lanes[p * 2 + lane]
            i = len(L) - 1
            while i >= 0:
                cr = L[i]
                if cr[C_ACTIVATED]:
                    i -= 1
                    continue
                L[i] = (cr[0], cr[1], cr[2], cr[3], True, cr[5])
                if not cr[C_NEW] or (self._abilities(p, L, i) & RAGE and lanes[(1 - p) * 2 + lane]):
                    return self._attack_chain(p, cr[C_CARD], lane, i)
                if self._record:
                    self._emit(EventKind.ACTIVATION_PASSED, "R3.5b", player=p, card=CARD_IDS[cr[0]])
                i -= 1
        return None

    def next_attack(self) -> Event | None:
        """The attack ``next`` would make now (its ATTACKED event: attacker, target card or player),
        read off the board without playing it; ``None`` when ``next`` is not legal or attacks
        nothing.  It follows :meth:`_activate_next` and :meth:`_attack_chain` step for step (a test
        compares the two on random games): a front end asks this for every position it labels."""
        if _NEXT not in self.legal_actions():
            return None
        p = self._active
        lanes = self._lanes
        for lane in (1, 0) if self._rotated and p == 1 else (0, 1):
            L = lanes[p * 2 + lane]
            E = lanes[(1 - p) * 2 + lane]
            for i in range(len(L) - 1, -1, -1):
                cr = L[i]
                if cr[C_ACTIVATED]:
                    continue
                bits = self._abilities(p, L, i)
                if cr[C_NEW] and not (bits & RAGE and E):
                    continue  # R3.5b: it passes
                c = cr[C_CARD]
                amount = ATTACK[c] + cr[C_SPRINT] + (i if bits & SPRINT else 0)
                if not E:
                    return Event(
                        EventKind.ATTACKED,
                        "R3.7",
                        player=p,
                        card=CARD_IDS[c],
                        target_player=1 - p,
                        amount=amount,
                    )
                return Event(
                    EventKind.ATTACKED,
                    "R3.7",
                    player=p,
                    card=CARD_IDS[c],
                    target_player=1 - p,
                    target_card=CARD_IDS[E[0][C_CARD]],
                    lane=_LANES[lane],
                    amount=amount,
                )
        return None

    def _run_activations(self) -> None:
        """Resolve every remaining activation, then end the turn (the `end` of Combat)."""
        while self._stage != OVER:
            r = self._activate_next()
            if r is False:
                return  # paused for a return order; resumed by _resume()
            if r is None:
                break
        if self._stage != OVER:
            self._end_turn()

    def _find(self, p: int, c: int) -> tuple[int, int]:
        for lane in (0, 1):
            L = self._lanes[p * 2 + lane]
            for i in range(len(L)):
                if L[i][C_CARD] == c:
                    return lane, i
        raise AssertionError("attacker not in play")  # pragma: no cover

    def _attack_chain(self, p: int, c: int, lane: int = -1, i: int = -1) -> bool:
        """One activation: an attack and its Berserk re-attacks (R3.7, R6.6).  False if paused.

        ``lane``/``i`` locate the attacker when known (else it is looked up)."""
        q = 1 - p
        rec = self._record
        lanes = self._lanes
        while True:
            if lane < 0:
                lane, i = self._find(p, c)
            L = lanes[p * 2 + lane]
            E = lanes[q * 2 + lane]
            bits = self._abilities(p, L, i)
            cr = L[i]
            if cr[C_NEW] and (not bits & RAGE or not E):
                return True  # R6.3: in its entry turn it attacks creatures only
            if bits & SPRINT and i:
                cr = (cr[0], cr[1], cr[2], cr[3], cr[4], cr[5] + i)
                del L[i]
                L.insert(0, cr)
                if rec:
                    self._emit(EventKind.SPRINTED, "R6.7", player=p, card=CARD_IDS[c], amount=i)
                i = 0
                bits = self._abilities(p, L, 0)
            amount = ATTACK[c] + cr[C_SPRINT]
            if not E:
                if rec:
                    self._emit(
                        EventKind.ATTACKED, "R3.7", player=p, card=CARD_IDS[c], target_player=q, amount=amount
                    )
                self._damage_player(q, amount, True)
                return True
            if rec:
                self._emit(
                    EventKind.ATTACKED,
                    "R3.7",
                    player=p,
                    card=CARD_IDS[c],
                    target_player=q,
                    target_card=CARD_IDS[E[0][C_CARD]],
                    lane=_LANES[lane],
                    amount=amount,
                )
            destroyed = self._hit(q, lane, 0, amount, bits, False)
            if not destroyed:
                return True
            paused = self._return_destroyed(q, destroyed)
            if not bits & BERSERK:
                return not paused
            if rec:
                self._emit(
                    EventKind.ATTACKED,
                    "R6.6",
                    player=p,
                    card=CARD_IDS[c],
                    detail="berserk: attacks again",
                    role="berserk",
                )
            if paused:
                self._chain = (p, c)
                return False
            # The attacker's own lane did not change (only the defender's creatures were hit).

    def _hit(self, q: int, lane: int, pos: int, amount: int, bits: int, from_inc: bool) -> list[int]:
        """Deal one attack's damage to ``q``'s creature at (lane, pos) and its Splash/Perforation
        victims, all worked out on the board as it stands (R6.9); remove the destroyed (R3.8) and
        return their cards in hit order (target, Splash victim, Perforation victim)."""
        lanes = self._lanes
        base = q * 2
        L = lanes[base + lane]
        splash = bits & SPLASH and pos < len(lanes[base + 1 - lane])
        perforation = bits & PERFORATION and pos + 1 < len(L)
        if not splash and not perforation:
            # The common case: one victim.
            vc = self._damage(q, L, pos, self._abilities(q, L, pos), amount, from_inc, 0)
            if vc < 0:
                return []
            del L[pos]
            if self._record:
                self._emit(EventKind.DESTROYED, "R3.8", player=q, card=CARD_IDS[vc])
            return [vc]
        hits = [(lane, pos, 0)]
        if splash:
            hits.append((1 - lane, pos, 1))
        if perforation:
            hits.append((lane, pos + 1, 2))
        # Abilities of every victim first: Aura adjacency as it stands before any change (R6.9).
        victims = [(ln, ps, role, self._abilities(q, lanes[base + ln], ps)) for ln, ps, role in hits]
        destroyed: list[tuple[int, int, int]] = []
        for ln, ps, role, vb in victims:
            vc = self._damage(q, lanes[base + ln], ps, vb, amount, from_inc, role)
            if vc >= 0:
                destroyed.append((ln, ps, vc))
        if not destroyed:
            return []
        for ln, ps, _ in sorted(destroyed, key=lambda t: -t[1]):
            del lanes[base + ln][ps]
        cards = [vc for _, _, vc in destroyed]
        if self._record:
            for vc in cards:
                self._emit(EventKind.DESTROYED, "R3.8", player=q, card=CARD_IDS[vc])
        return cards

    def _damage(
        self, q: int, VL: list[Creature], ps: int, vb: int, amount: int, from_inc: bool, role: int
    ) -> int:
        """Damage one victim (role 0 target, 1 Splash, 2 Perforation): its card if destroyed, else -1."""
        cr = VL[ps]
        vc = cr[C_CARD]
        if from_inc and vb & INDESTRUCTIBLE:
            if self._record:
                self._emit(
                    EventKind.ABSORBED,
                    "R6.5",
                    player=q,
                    card=CARD_IDS[vc],
                    detail="Indestructible",
                    role="indestructible",
                )
            return -1
        if amount <= 0:
            return -1
        if vb & PROTECTION and not cr[C_PROTECTED] and (role == 0 or self._prot_any):
            VL[ps] = (vc, cr[1], cr[2], True, cr[4], cr[5])
            if self._record:
                rule = "R6.4" if role == 0 else "R6.4b"
                self._emit(
                    EventKind.ABSORBED,
                    rule,
                    player=q,
                    card=CARD_IDS[vc],
                    detail="Protection",
                    role="protection",
                )
            return -1
        dmg = cr[C_DAMAGE] + amount
        VL[ps] = (vc, dmg, cr[2], cr[3], cr[4], cr[5])
        if self._record:
            what = ("target", "Splash", "Perforation")[role]
            self._emit(
                EventKind.DAMAGED,
                ("R3.8", "R6.1", "R6.2")[role],
                player=q,
                card=CARD_IDS[vc],
                amount=amount,
                detail=f"{what}, {dmg}/{HEALTH[vc]}",
                role=what.lower(),
                value=dmg,
            )
        return vc if dmg >= HEALTH[vc] else -1

    def _damage_player(self, q: int, amount: int, by_attack: bool) -> None:
        if self._solo and q == 1:
            if by_attack and self._threat.defence == "minus_one":
                amount = max(0, amount - 1)  # R8.2b
            self._mill(amount)
            return
        if amount <= 0:
            return
        hand = self._hands[q]
        fid = FORT if self._fort[q] else BASTION
        i = hand.index(fid)
        last = len(hand) - 1
        j = min(i + amount, last)
        del hand[i]
        hand.insert(j, fid)
        if self._record:
            self._emit(EventKind.FORTRESS_MOVED, "R4.1", player=q, amount=j - i, detail=f"{amount} damage")
        if j == last:
            if fid == BASTION:
                self._bastion_falls(q, "R4.2")
            else:
                self._game_over(1 - q, "R4.3", Termination.FORT_FALLEN)

    def _game_over(self, winner: int, rule: str, termination: Termination) -> None:
        reason = termination_reason(termination, None if winner == DRAW else winner, self._max_turns)
        self._winner = winner
        self._winner_reason = reason
        self._termination = termination
        if self._stage != OVER:
            self._over_phase = self._stage
        self._stage = OVER
        self._ending = False
        if self._record:
            self._emit(
                EventKind.GAME_OVER,
                rule,
                player=winner if winner != DRAW else None,
                detail=reason,
                role=termination.value,
            )

    # ------------------------------------------------------------------ end of turn

    def _end_turn(self) -> None:
        lanes = self._lanes
        for k in range(4):
            if lanes[k]:
                lanes[k] = [_FRESH[cr[0]] for cr in lanes[k]]
        self._ending = False
        if self._record:
            self._emit(EventKind.TURN_ENDED, "R3.10", player=self._active, amount=self._turn)
        if self._solo and self._active == 1 and self._last_turn:
            self._game_over(0, "R7.8", Termination.SURVIVED_LAST_TURN)
            return
        if self._max_turns is not None and self._turn >= self._max_turns:
            self._game_over(DRAW, "ruleset.max_turns", Termination.TURN_CAP)
            return
        self._turn += 1
        self._active = 1 - self._active
        self._start_turn()

    def _start_turn(self) -> None:
        p = self._active
        if self._solo and p == 1:
            self._automaton_turn()
            return
        self._stage = SUMMON
        self._mana = len(self._hands[p])
        if self._record:
            self._emit(
                EventKind.TURN_STARTED,
                "R3.1",
                player=p,
                amount=self._turn,
                detail=f"{self._mana} mana",
                value=self._mana,
            )
