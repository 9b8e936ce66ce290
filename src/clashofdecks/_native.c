/* The compiled core of Clash of Decks: the play phase of the rules package (rules/) in C99 (docs/native.md).
 *
 * A game is one flat, fixed-size struct (State); the functions below follow the rules package's methods
 * one for one (same names without the leading underscore), so a difference is easy to find.  The
 * setup stage and events stay in Python.  The game's chance is the rules package's: BLAKE2b-512 (RFC 7693)
 * over the 12-byte little-endian RNG state ``seed << 32 | counter``, implemented here.
 *
 * Card facts are not compiled in: clashofdecks.native passes the tables of cards.py once
 * (set_cards), so the card data has one source. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------ constants (actions.py, cards.py) */

#define N_CARDS 32
#define BASTION 32
#define FORT 33
#define HAND_CAP 40
#define LANE_CAP 32
#define DECK_CAP 40
#define MAX_POSITION 32
#define NONE 255

#define SETUP 0
#define SUMMON 1
#define COMBAT 2
#define OVER 3
#define DRAW 2

#define T_FORT_FALLEN 0
#define T_SURVIVED 1
#define T_TURN_CAP 2
#define T_RESIGNED 3
#define T_TIME 4 /* a clock ran out: set by a game's host, never by the core */

#define END 0
#define NEXT 1
#define PLAY_BASE 2
#define CAST_BASE (PLAY_BASE + N_CARDS * 2)

#define SPLASH 1
#define PERFORATION 2
#define RAGE 4
#define PROTECTION 8
#define INDESTRUCTIBLE 16
#define BERSERK 32
#define SPRINT 64

/* creature flags */
#define F_NEW 1
#define F_PROT 2
#define F_ACT 4

#define MAX_LEGAL 1024

#ifndef SOURCE_HASH
#define SOURCE_HASH "unknown" /* setup.py defines it: the first 16 hex digits of this file's SHA-256 */
#endif

static uint8_t COST[FORT + 1], ATTACK[FORT + 1], HEALTH[FORT + 1], IS_INC[FORT + 1];
static uint8_t ABIL[FORT + 1], AURA[FORT + 1], INC_SLOT[FORT + 1];
static uint8_t INCANTATIONS[N_CARDS];
static int N_INC = 0;
static int ORDER_BASE = 0;
static int cards_ready = 0;

/* ------------------------------------------------------------------ the state */

typedef struct {
    uint8_t card, damage, flags, sprint;
} Creature;

typedef struct {
    /* configuration (Ruleset, Threat) */
    uint8_t solo, rotated, timing_combat, prot_any, per_card, defence_minus_one;
    uint8_t threat_bits;
    int32_t base_mana, extra_mana, max_turns; /* max_turns -1: no cap */
    /* the game */
    uint8_t stage, active, winner, termination, over_phase, ending, last_turn;
    uint8_t fort[2];
    int64_t turn;
    int32_t mana;
    uint8_t hand_len[2], hands[2][HAND_CAP];
    uint8_t lane_len[4];
    Creature lanes[4][LANE_CAP];
    uint64_t known[2];
    uint8_t deck_len, deck[DECK_CAP], discard_len, discard[DECK_CAP];
    uint8_t pending_player, pending_n, pending[3];
    uint8_t cast_p, cast_c, chain_p, chain_c;
    uint8_t auto_on;
    int32_t auto_spent, auto_slot, auto_shown;
    uint64_t rng_seed;
    uint32_t rng_counter;
} State;

/* ------------------------------------------------------------------ BLAKE2b (RFC 7693) */

static const uint64_t B2_IV[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

static const uint8_t B2_SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

static inline uint64_t rotr64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

static inline uint64_t load64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

#define B2_G(a, b, c, d, x, y)             \
    do {                                   \
        v[a] = v[a] + v[b] + (x);          \
        v[d] = rotr64(v[d] ^ v[a], 32);    \
        v[c] = v[c] + v[d];                \
        v[b] = rotr64(v[b] ^ v[c], 24);    \
        v[a] = v[a] + v[b] + (y);          \
        v[d] = rotr64(v[d] ^ v[a], 16);    \
        v[c] = v[c] + v[d];                \
        v[b] = rotr64(v[b] ^ v[c], 63);    \
    } while (0)

static void b2_compress(uint64_t h[8], const uint8_t block[128], uint64_t t, int last) {
    uint64_t v[16], m[16];
    for (int i = 0; i < 16; i++) m[i] = load64(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = h[i];
        v[i + 8] = B2_IV[i];
    }
    v[12] ^= t; /* messages here are far below 2**64 bytes: the high counter word stays 0 */
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = B2_SIGMA[r];
        B2_G(0, 4, 8, 12, m[s[0]], m[s[1]]);
        B2_G(1, 5, 9, 13, m[s[2]], m[s[3]]);
        B2_G(2, 6, 10, 14, m[s[4]], m[s[5]]);
        B2_G(3, 7, 11, 15, m[s[6]], m[s[7]]);
        B2_G(0, 5, 10, 15, m[s[8]], m[s[9]]);
        B2_G(1, 6, 11, 12, m[s[10]], m[s[11]]);
        B2_G(2, 7, 8, 13, m[s[12]], m[s[13]]);
        B2_G(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

/* Unkeyed BLAKE2b with a 64-byte digest (what hashlib.blake2b(data, digest_size=64) gives). */
static void blake2b_512(const uint8_t *data, size_t len, uint8_t out[64]) {
    uint64_t h[8];
    uint8_t block[128];
    for (int i = 0; i < 8; i++) h[i] = B2_IV[i];
    h[0] ^= 0x01010000ULL ^ 64; /* depth 1, fanout 1, no key, digest length 64 */
    size_t done = 0;
    while (len - done > 128) {
        b2_compress(h, data + done, (uint64_t)(done + 128), 0);
        done += 128;
    }
    memset(block, 0, sizeof block);
    memcpy(block, data + done, len - done);
    b2_compress(h, block, (uint64_t)len, 1);
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 8; k++) out[8 * i + k] = (uint8_t)(h[i] >> (8 * k));
}

/* rules.Game._next_block: 64 bytes for the state, then counter + 1 (mod 2**32). */
static void next_block(State *s, uint8_t out[64]) {
    uint8_t msg[12];
    for (int k = 0; k < 4; k++) msg[k] = (uint8_t)(s->rng_counter >> (8 * k));
    for (int k = 0; k < 8; k++) msg[4 + k] = (uint8_t)(s->rng_seed >> (8 * k));
    blake2b_512(msg, 12, out);
    s->rng_counter = s->rng_counter + 1;
}

/* rules.Game._shuffle: Fisher-Yates, one byte per step with rejection. */
static void shuffle(State *s, uint8_t *items, int n) {
    uint8_t block[64];
    int k = 64;
    for (int i = n - 1; i > 0; i--) {
        int m = i + 1;
        int limit = 256 - 256 % m;
        int byte;
        for (;;) {
            if (k == 64) {
                next_block(s, block);
                k = 0;
            }
            byte = block[k++];
            if (byte < limit) break;
        }
        int j = byte % m;
        uint8_t t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
}

/* ------------------------------------------------------------------ small helpers */

static inline int abilities(const State *s, int p, int k, int i) {
    const Creature *L = s->lanes[k];
    int bits = ABIL[L[i].card];
    if (i) bits |= AURA[L[i - 1].card];
    if (i + 1 < s->lane_len[k]) bits |= AURA[L[i + 1].card];
    if (p == 1) bits |= s->threat_bits;
    return bits;
}

static inline int hand_index(const State *s, int p, int c) {
    for (int i = 0; i < s->hand_len[p]; i++)
        if (s->hands[p][i] == c) return i;
    return -1;
}

static inline void hand_remove(State *s, int p, int c) {
    int i = hand_index(s, p, c);
    uint8_t *h = s->hands[p];
    memmove(h + i, h + i + 1, (size_t)(s->hand_len[p] - i - 1));
    s->hand_len[p]--;
}

static inline void hand_append(State *s, int p, int c) { s->hands[p][s->hand_len[p]++] = (uint8_t)c; }

static inline void lane_append_new(State *s, int k, int c) {
    Creature cr = {(uint8_t)c, 0, F_NEW, 0};
    s->lanes[k][s->lane_len[k]++] = cr;
}

static inline void lane_delete(State *s, int k, int i) {
    Creature *L = s->lanes[k];
    memmove(L + i, L + i + 1, (size_t)(s->lane_len[k] - i - 1) * sizeof(Creature));
    s->lane_len[k]--;
}

static inline int deck_pop_front(State *s) {
    int c = s->deck[0];
    memmove(s->deck, s->deck + 1, (size_t)(s->deck_len - 1));
    s->deck_len--;
    return c;
}

/* ------------------------------------------------------------------ legal actions */

static int can_next(const State *s) {
    int p = s->active;
    for (int lane = 0; lane < 2; lane++) {
        int k = p * 2 + lane;
        for (int i = 0; i < s->lane_len[k]; i++) {
            const Creature *cr = &s->lanes[k][i];
            if (cr->flags & F_ACT) continue;
            if (!(cr->flags & F_NEW)) return 1;
            if (s->lane_len[(1 - p) * 2 + lane] && (abilities(s, p, k, i) & RAGE)) return 1;
        }
    }
    return 0;
}

static int compute_legal(const State *s, int *out) {
    int n = 0;
    if (s->stage == OVER || s->stage == SETUP) return 0;
    if (s->pending_player != NONE) {
        int count = s->pending_n == 3 ? 6 : s->pending_n == 2 ? 2 : 1;
        for (int k = 0; k < count; k++) out[n++] = ORDER_BASE + k;
        return n;
    }
    int p = s->active;
    const uint8_t *hand = s->hands[p];
    int hn = s->hand_len[p];
    int mana = s->mana;
    int summon = s->stage == SUMMON;
    int casting = summon || s->timing_combat;
    int fort = s->fort[p];
    int fi = hand_index(s, p, fort ? FORT : BASTION);
    int can_play = summon && hn > 2;
    int blocked = (fort && fi == hn - 2) ? hand[hn - 1] : -1;
    int plays[4], casts[4], np = 0, nc = 0, seen = 0;
    /* The 4 leftmost cards besides the fortress (R3.2). */
    for (int i = 0; i < hn && seen < 4; i++) {
        if (i == fi) continue;
        int c = hand[i];
        seen++;
        if (COST[c] <= mana) {
            if (IS_INC[c]) {
                if (casting) casts[nc++] = c;
            } else if (can_play && c != blocked) {
                plays[np++] = c;
            }
        }
    }
    out[n++] = END;
    if (!summon && can_next(s)) out[n++] = NEXT;
    for (int a = 1; a < np; a++)
        for (int b = a; b > 0 && plays[b - 1] > plays[b]; b--) {
            int t = plays[b];
            plays[b] = plays[b - 1];
            plays[b - 1] = t;
        }
    for (int a = 0; a < np; a++) {
        out[n++] = PLAY_BASE + plays[a] * 2;
        out[n++] = PLAY_BASE + plays[a] * 2 + 1;
    }
    if (nc && (s->lane_len[0] || s->lane_len[1] || s->lane_len[2] || s->lane_len[3])) {
        for (int a = 1; a < nc; a++)
            for (int b = a; b > 0 && casts[b - 1] > casts[b]; b--) {
                int t = casts[b];
                casts[b] = casts[b - 1];
                casts[b - 1] = t;
            }
        for (int a = 0; a < nc; a++) {
            int slot = INC_SLOT[casts[a]];
            for (int k = 0; k < 4; k++)
                for (int pos = 0; pos < s->lane_len[k]; pos++)
                    out[n++] = CAST_BASE + (slot * 4 + k) * MAX_POSITION + pos;
        }
    }
    return n;
}

/* ------------------------------------------------------------------ resolution (rules/, same order) */

static int attack_chain(State *s, int p, int c, int lane, int i);
static void run_activations(State *s);
static void automaton_continue(State *s);
static void start_turn(State *s);

static void game_over(State *s, int winner, int termination) {
    s->winner = (uint8_t)winner;
    s->termination = (uint8_t)termination;
    if (s->stage != OVER) s->over_phase = s->stage;
    s->stage = OVER;
    s->ending = 0;
}

static void bastion_falls(State *s, int p) {
    uint8_t *h = s->hands[p];
    int n = s->hand_len[p];
    memmove(h + 1, h, (size_t)(n - 1)); /* pop the last (the Bastion), insert the Fort leftmost */
    h[0] = FORT;
    s->fort[p] = 1;
}

static void play(State *s, int c, int lane) {
    int p = s->active;
    hand_remove(s, p, c);
    s->mana -= COST[c];
    lane_append_new(s, p * 2 + lane, c);
    if (s->hands[p][s->hand_len[p] - 1] == BASTION) bastion_falls(s, p);
}

static void finish_cast(State *s, int p, int c) {
    if (s->solo && p == 1) {
        s->discard[s->discard_len++] = (uint8_t)c;
    } else {
        hand_append(s, p, c);
        s->known[p] |= 1ULL << c;
    }
}

static int damage(State *s, int k, int ps, int vb, int amount, int from_inc, int role) {
    Creature *cr = &s->lanes[k][ps];
    int vc = cr->card;
    if (from_inc && (vb & INDESTRUCTIBLE)) return -1;
    if (amount <= 0) return -1;
    if ((vb & PROTECTION) && !(cr->flags & F_PROT) && (role == 0 || s->prot_any)) {
        cr->flags |= F_PROT;
        return -1;
    }
    int dmg = cr->damage + amount;
    cr->damage = (uint8_t)(dmg > 255 ? 255 : dmg);
    return dmg >= HEALTH[vc] ? vc : -1;
}

/* One attack's damage to q's creature at (lane, pos) and its Splash/Perforation victims (R6.9);
 * the destroyed leave play; their cards go to out in hit order; returns how many. */
static int hit(State *s, int q, int lane, int pos, int amount, int bits, int from_inc, uint8_t out[3]) {
    int k = q * 2 + lane, ko = q * 2 + 1 - lane;
    int splash = (bits & SPLASH) && pos < s->lane_len[ko];
    int perforation = (bits & PERFORATION) && pos + 1 < s->lane_len[k];
    if (!splash && !perforation) {
        int vc = damage(s, k, pos, abilities(s, q, k, pos), amount, from_inc, 0);
        if (vc < 0) return 0;
        lane_delete(s, k, pos);
        out[0] = (uint8_t)vc;
        return 1;
    }
    int hk[3], hp[3], hr[3], hb[3], nh = 0;
    hk[nh] = k, hp[nh] = pos, hr[nh] = 0, nh++;
    if (splash) hk[nh] = ko, hp[nh] = pos, hr[nh] = 1, nh++;
    if (perforation) hk[nh] = k, hp[nh] = pos + 1, hr[nh] = 2, nh++;
    for (int v = 0; v < nh; v++) hb[v] = abilities(s, q, hk[v], hp[v]); /* Aura before any change */
    int dk[3], dp[3], nd = 0;
    for (int v = 0; v < nh; v++) {
        int vc = damage(s, hk[v], hp[v], hb[v], amount, from_inc, hr[v]);
        if (vc >= 0) {
            dk[nd] = hk[v];
            dp[nd] = hp[v];
            out[nd] = (uint8_t)vc;
            nd++;
        }
    }
    /* Remove from the highest position down (only the Perforation victim shares a lane). */
    int order[3] = {0, 1, 2};
    for (int a = 1; a < nd; a++)
        for (int b = a; b > 0 && dp[order[b - 1]] < dp[order[b]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    for (int a = 0; a < nd; a++) lane_delete(s, dk[order[a]], dp[order[a]]);
    return nd;
}

static int return_destroyed(State *s, int q, const uint8_t *cards, int n) {
    if (!n) return 0;
    if (s->solo && q == 1) {
        for (int i = 0; i < n; i++) s->discard[s->discard_len++] = cards[i];
        return 0;
    }
    if (n == 1) {
        hand_append(s, q, cards[0]);
        s->known[q] |= 1ULL << cards[0];
        return 0;
    }
    s->pending_player = (uint8_t)q;
    s->pending_n = (uint8_t)n;
    for (int i = 0; i < n; i++) s->pending[i] = cards[i];
    return 1;
}

static void cast(State *s, int c, int q, int lane, int pos) {
    int p = s->active;
    s->mana -= COST[c];
    hand_remove(s, p, c);
    int bits = ABIL[c] | (p == 1 ? s->threat_bits : 0);
    uint8_t d[3];
    int nd = hit(s, q, lane, pos, ATTACK[c], bits, 1, d);
    if (return_destroyed(s, q, d, nd)) {
        s->cast_p = (uint8_t)p;
        s->cast_c = (uint8_t)c;
        return;
    }
    finish_cast(s, p, c);
}

static void rebuild_deck(State *s) {
    uint8_t pile[DECK_CAP];
    int n = s->discard_len;
    memcpy(pile, s->discard, (size_t)n);
    shuffle(s, pile, n);
    memcpy(s->deck, pile, (size_t)n);
    s->deck[n] = FORT;
    s->deck_len = (uint8_t)(n + 1);
    s->discard_len = 0;
    s->fort[1] = 1;
}

static void mill(State *s, int amount) {
    if (amount <= 0) return;
    int n = 0;
    while (n < amount && s->deck_len > 1) {
        int c = deck_pop_front(s);
        s->discard[s->discard_len++] = (uint8_t)c;
        n++;
        if (s->deck_len == 1 && !s->fort[1]) {
            rebuild_deck(s); /* R7.7; the rest of the damage is lost (R7.6a) */
            break;
        }
    }
}

static void damage_player(State *s, int q, int amount, int by_attack) {
    if (s->solo && q == 1) {
        if (by_attack && s->defence_minus_one) amount = amount - 1 < 0 ? 0 : amount - 1;
        mill(s, amount);
        return;
    }
    if (amount <= 0) return;
    uint8_t *h = s->hands[q];
    int fid = s->fort[q] ? FORT : BASTION;
    int i = hand_index(s, q, fid);
    int last = s->hand_len[q] - 1;
    int j = i + amount < last ? i + amount : last;
    memmove(h + i, h + i + 1, (size_t)(j - i));
    h[j] = (uint8_t)fid;
    if (j == last) {
        if (fid == BASTION)
            bastion_falls(s, q);
        else
            game_over(s, 1 - q, T_FORT_FALLEN);
    }
}

static void find_creature(const State *s, int p, int c, int *lane, int *i) {
    for (int ln = 0; ln < 2; ln++) {
        int k = p * 2 + ln;
        for (int x = 0; x < s->lane_len[k]; x++)
            if (s->lanes[k][x].card == c) {
                *lane = ln;
                *i = x;
                return;
            }
    }
    *lane = 0; /* unreachable in a consistent state: the attacker is in play */
    *i = 0;
}

/* One activation: an attack and its Berserk re-attacks (R3.7, R6.6); 0 if paused. */
static int attack_chain(State *s, int p, int c, int lane, int i) {
    int q = 1 - p;
    for (;;) {
        if (lane < 0) find_creature(s, p, c, &lane, &i);
        int k = p * 2 + lane;
        int enemies = s->lane_len[q * 2 + lane];
        int bits = abilities(s, p, k, i);
        Creature *L = s->lanes[k];
        if ((L[i].flags & F_NEW) && (!(bits & RAGE) || !enemies)) return 1;
        if ((bits & SPRINT) && i) {
            Creature moved = L[i];
            moved.sprint = (uint8_t)(moved.sprint + i);
            memmove(L + 1, L, (size_t)i * sizeof(Creature));
            L[0] = moved;
            i = 0;
            bits = abilities(s, p, k, 0);
        }
        int amount = ATTACK[c] + L[i].sprint;
        if (!enemies) {
            damage_player(s, q, amount, 1);
            return 1;
        }
        uint8_t d[3];
        int nd = hit(s, q, lane, 0, amount, bits, 0, d);
        if (!nd) return 1;
        int paused = return_destroyed(s, q, d, nd);
        if (!(bits & BERSERK)) return !paused;
        if (paused) {
            s->chain_p = (uint8_t)p;
            s->chain_c = (uint8_t)c;
            return 0;
        }
    }
}

/* Activate creatures in order (R3.5) until one attacks: -1 none left, 0 paused, 1 otherwise. */
static int activate_next(State *s) {
    int p = s->active;
    int flip = (s->rotated && p == 1) ? 1 : 0;
    for (int t = 0; t < 2; t++) {
        int lane = t ^ flip;
        int k = p * 2 + lane;
        for (int i = s->lane_len[k] - 1; i >= 0; i--) {
            Creature *cr = &s->lanes[k][i];
            if (cr->flags & F_ACT) continue;
            cr->flags |= F_ACT;
            if (!(cr->flags & F_NEW) ||
                ((abilities(s, p, k, i) & RAGE) && s->lane_len[(1 - p) * 2 + lane]))
                return attack_chain(s, p, cr->card, lane, i);
        }
    }
    return -1;
}

static void end_turn(State *s) {
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < s->lane_len[k]; i++) {
            Creature *cr = &s->lanes[k][i];
            cr->damage = 0;
            cr->flags = 0;
            cr->sprint = 0;
        }
    s->ending = 0;
    if (s->solo && s->active == 1 && s->last_turn) {
        game_over(s, 0, T_SURVIVED);
        return;
    }
    if (s->max_turns >= 0 && s->turn >= s->max_turns) {
        game_over(s, DRAW, T_TURN_CAP);
        return;
    }
    s->turn++;
    s->active = (uint8_t)(1 - s->active);
    start_turn(s);
}

static void run_activations(State *s) {
    while (s->stage != OVER) {
        int r = activate_next(s);
        if (r == 0) return; /* paused for a return order */
        if (r < 0) break;
    }
    if (s->stage != OVER) end_turn(s);
}

static void automaton_turn(State *s) {
    int creatures = s->lane_len[0] + s->lane_len[1];
    s->mana = s->base_mana + s->extra_mana * creatures;
    s->stage = SUMMON;
    s->last_turn = s->fort[1] && s->deck_len <= 1;
    s->auto_on = 1;
    s->auto_spent = s->auto_slot = s->auto_shown = 0;
    automaton_continue(s);
}

static void start_turn(State *s) {
    int p = s->active;
    if (s->solo && p == 1) {
        automaton_turn(s);
        return;
    }
    s->stage = SUMMON;
    s->mana = s->hand_len[p];
}

static void automaton_continue(State *s) {
    while (s->auto_on) {
        int spent = s->auto_spent, slot = s->auto_slot, shown = s->auto_shown;
        if ((shown && spent >= s->mana) || s->deck_len <= 1) {
            s->auto_on = 0;
            break;
        }
        shown++;
        int c = deck_pop_front(s);
        if (s->deck_len == 1 && !s->fort[1]) rebuild_deck(s); /* R7.8a */
        if (!IS_INC[c]) {
            int lane = (slot & 1) ^ (s->rotated ? 1 : 0);
            lane_append_new(s, 2 + lane, c);
            s->auto_spent = spent + COST[c];
            s->auto_slot = slot + 1;
            s->auto_shown = shown;
            continue;
        }
        slot += s->per_card ? 1 : 0;
        int lane;
        if (s->lane_len[0])
            lane = 0;
        else if (s->lane_len[1])
            lane = 1;
        else {
            s->discard[s->discard_len++] = (uint8_t)c; /* R7.4a */
            s->auto_spent = spent;
            s->auto_slot = slot;
            s->auto_shown = shown;
            continue;
        }
        s->auto_spent = spent + COST[c];
        s->auto_slot = slot;
        s->auto_shown = shown;
        uint8_t d[3];
        int nd = hit(s, 0, lane, 0, ATTACK[c], ABIL[c] | s->threat_bits, 1, d);
        if (return_destroyed(s, 0, d, nd)) {
            s->cast_p = 1;
            s->cast_c = (uint8_t)c;
            return;
        }
        finish_cast(s, 1, c);
    }
    if (s->stage == SUMMON) s->stage = COMBAT;
    s->ending = 1;
    run_activations(s);
}

static void resume_after_order(State *s) {
    if (s->cast_p != NONE) {
        int p = s->cast_p, c = s->cast_c;
        s->cast_p = NONE;
        finish_cast(s, p, c);
    }
    if (s->chain_p != NONE) {
        int p = s->chain_p, c = s->chain_c;
        s->chain_p = NONE;
        if (!attack_chain(s, p, c, -1, -1) || s->stage == OVER) return;
    }
    if (s->solo && s->active == 1)
        automaton_continue(s);
    else if (s->ending)
        run_activations(s);
}

static const uint8_t PERM2[2][2] = {{0, 1}, {1, 0}};
static const uint8_t PERM3[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

static void do_order(State *s, int action) {
    int k = action - ORDER_BASE;
    int q = s->pending_player, n = s->pending_n;
    uint8_t chosen[3];
    for (int i = 0; i < n; i++)
        chosen[i] = s->pending[n == 3 ? PERM3[k][i] : n == 2 ? PERM2[k][i] : i];
    s->pending_player = NONE;
    s->pending_n = 0;
    for (int i = 0; i < n; i++) {
        hand_append(s, q, chosen[i]);
        s->known[q] |= 1ULL << chosen[i];
    }
    resume_after_order(s);
}

/* rules.Game._dispatch for a verified play-phase action. */
static void dispatch(State *s, int action) {
    if (action == END && s->pending_player == NONE) {
        if (s->stage == SUMMON) {
            s->stage = COMBAT;
        } else {
            s->ending = 1;
            run_activations(s);
        }
    } else if (action < CAST_BASE) {
        if (action == NEXT)
            activate_next(s);
        else
            play(s, (action - PLAY_BASE) >> 1, (action - PLAY_BASE) & 1);
    } else if (action < ORDER_BASE) {
        int i = action - CAST_BASE;
        cast(s, INCANTATIONS[i / (4 * MAX_POSITION)], i / (2 * MAX_POSITION) % 2, i / MAX_POSITION % 2,
             i % MAX_POSITION);
    } else {
        do_order(s, action);
    }
}

/* rules.Game.resume: the automaton's turn when a built state leaves it to play. */
static void resume_state(State *s) {
    if ((s->stage == SUMMON || s->stage == COMBAT) && s->pending_player == NONE && s->solo && s->active == 1) {
        if (s->stage == SUMMON && !s->auto_on) {
            s->auto_on = 1;
            s->auto_spent = s->auto_slot = s->auto_shown = 0;
        }
        automaton_continue(s);
    }
}

static int current_player(const State *s) {
    if (s->stage == OVER) return -1;
    if (s->pending_player != NONE) return s->pending_player;
    return s->active;
}

/* Game.random_duel: shuffle the 32 cards, 8 to each player, Bastion leftmost, 6 mana. */
static void random_duel_state(State *s, uint64_t seed) {
    memset(s, 0, sizeof *s);
    s->timing_combat = 1; /* the digest's default ruleset */
    s->base_mana = 6;     /* the quick game's threat (unused in a duel, kept as Python's) */
    s->extra_mana = 1;
    s->max_turns = -1;
    s->stage = SUMMON;
    s->turn = 1;
    s->mana = 6;
    s->winner = NONE;
    s->termination = T_FORT_FALLEN;
    s->over_phase = COMBAT;
    s->pending_player = s->cast_p = s->chain_p = NONE;
    s->rng_seed = seed;
    uint8_t cards[N_CARDS];
    for (int i = 0; i < N_CARDS; i++) cards[i] = (uint8_t)i;
    shuffle(s, cards, N_CARDS);
    for (int p = 0; p < 2; p++) {
        s->hands[p][0] = BASTION;
        memcpy(s->hands[p] + 1, cards + 8 * p, 8);
        s->hand_len[p] = 9;
    }
}

/* ------------------------------------------------------------------ the playout generator */

/* SplitMix64 (a documented, seedable stream for choices made inside C; not the game's chance). */
static inline uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform index below n from 64 random bits (multiply-shift: bias below n / 2**64). */
static inline int pick_below(uint64_t *x, int n) {
    return (int)(((unsigned __int128)splitmix64(x) * (unsigned)n) >> 64);
}

static long playout(State *s, uint64_t *gen, long max_actions) {
    int legal[MAX_LEGAL];
    long actions = 0;
    while (s->stage != OVER && actions < max_actions) {
        int n = compute_legal(s, legal);
        if (!n) break; /* an unloaded Core (Core.__new__): no decision to make */
        dispatch(s, legal[pick_below(gen, n)]);
        actions++;
    }
    return actions;
}

/* ------------------------------------------------------------------ the Python type */

/* Only the state: legal actions are computed when asked (a few hundred instructions), so a copy
 * (clone, undo record) is the 784-byte state and nothing else. */
typedef struct {
    PyObject_HEAD State s;
} CoreObject;

static PyTypeObject CoreType;

static PyObject *NotReady(void) {
    PyErr_SetString(PyExc_RuntimeError, "clashofdecks._native: set_cards() has not been called");
    return NULL;
}

static CoreObject *core_new_empty(void) {
    return PyObject_New(CoreObject, &CoreType);
}

/* --- conversion helpers: every value is range-checked, a bad one raises ValueError naming it */

static int get_long(PyObject *seq, Py_ssize_t i, long lo, long hi, const char *what, long *out) {
    PyObject *item = PySequence_GetItem(seq, i);
    if (!item) return -1;
    long v = PyLong_AsLong(item);
    Py_DECREF(item);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be an integer in %ld..%ld", what, lo, hi);
        return -1;
    }
    if (v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s = %ld is outside %ld..%ld", what, v, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int get_cards(PyObject *seq, Py_ssize_t i, int cap, int max_card, const char *what, uint8_t *dst,
                     uint8_t *len) {
    PyObject *item = PySequence_GetItem(seq, i);
    if (!item) return -1;
    PyObject *fast = PySequence_Fast(item, what);
    Py_DECREF(item);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > cap) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd cards (the compiled core keeps at most %d)", what, n, cap);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, k));
        if ((v == -1 && PyErr_Occurred()) || v < 0 || v > max_card) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s holds a card outside 0..%d", what, max_card);
            Py_DECREF(fast);
            return -1;
        }
        dst[k] = (uint8_t)v;
    }
    *len = (uint8_t)n;
    Py_DECREF(fast);
    return 0;
}

static int get_opt_pair(PyObject *seq, Py_ssize_t i, const char *what, uint8_t *a, uint8_t *b) {
    PyObject *item = PySequence_GetItem(seq, i);
    if (!item) return -1;
    if (item == Py_None) {
        Py_DECREF(item);
        *a = NONE;
        *b = 0;
        return 0;
    }
    long x, y;
    int r = (get_long(item, 0, 0, 1, what, &x) || get_long(item, 1, 0, N_CARDS - 1, what, &y)) ? -1 : 0;
    Py_DECREF(item);
    if (r == 0) {
        *a = (uint8_t)x;
        *b = (uint8_t)y;
    }
    return r;
}

/* state[1], the turn: an int up to 2**62 (a 64-bit field). */
static int load_turn(State *s, PyObject *state) {
    PyObject *item = PySequence_GetItem(state, 1);
    if (!item) return -1;
    long long t = PyLong_AsLongLong(item);
    Py_DECREF(item);
    if ((t == -1 && PyErr_Occurred()) || t < 0 || t > 0x3fffffffffffffffLL) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "turn must be an integer in 0..2**62");
        return -1;
    }
    s->turn = t;
    return 0;
}

/* state[9], the four lanes of creature 6-tuples. */
static int load_lanes(State *s, PyObject *state) {
    PyObject *lanes = PySequence_GetItem(state, 9);
    if (!lanes) return -1;
    int bad = !PySequence_Check(lanes) || PySequence_Size(lanes) != 4;
    for (int k = 0; k < 4 && !bad; k++) {
        PyObject *L = PySequence_GetItem(lanes, k);
        if (!L) {
            bad = 2;
            break;
        }
        Py_ssize_t n = PySequence_Check(L) ? PySequence_Size(L) : -1;
        if (n < 0 || n > LANE_CAP) {
            Py_DECREF(L);
            bad = 1;
            break;
        }
        for (Py_ssize_t i = 0; i < n && !bad; i++) {
            PyObject *cr = PySequence_GetItem(L, i);
            long f[6];
            static const long hi[6] = {N_CARDS - 1, 255, 1, 1, 1, 255};
            if (!cr || !PySequence_Check(cr) || PySequence_Size(cr) != 6) {
                bad = 1;
            } else {
                for (int j = 0; j < 6 && !bad; j++)
                    if (get_long(cr, j, 0, hi[j], "a creature field", &f[j])) bad = 2;
            }
            Py_XDECREF(cr);
            if (!bad) {
                Creature c = {(uint8_t)f[0], (uint8_t)f[1],
                              (uint8_t)((f[2] ? F_NEW : 0) | (f[3] ? F_PROT : 0) | (f[4] ? F_ACT : 0)),
                              (uint8_t)f[5]};
                s->lanes[k][i] = c;
            }
        }
        s->lane_len[k] = (uint8_t)n;
        Py_DECREF(L);
    }
    Py_DECREF(lanes);
    if (bad) {
        if (bad == 1 || !PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "lanes must be 4 sequences of creature 6-tuples");
        return -1;
    }
    return 0;
}

/* state[14], a pending return order (R3.9): None or (player, cards). */
static int load_pending(State *s, PyObject *state) {
    PyObject *item = PySequence_GetItem(state, 14);
    if (!item) return -1;
    s->pending_player = NONE;
    if (item != Py_None) {
        long q;
        uint8_t n = 0;
        if (get_long(item, 0, 0, 1, "pending player", &q) ||
            get_cards(item, 1, 3, N_CARDS - 1, "pending cards", s->pending, &n)) {
            Py_DECREF(item);
            return -1;
        }
        if (n < 1) {
            Py_DECREF(item);
            PyErr_SetString(PyExc_ValueError, "a pending return order needs 1 to 3 cards");
            return -1;
        }
        s->pending_player = (uint8_t)q;
        s->pending_n = n;
    }
    Py_DECREF(item);
    return 0;
}

/* state[18], the automaton's summoning progress this turn: None or (spent, slot, revealed). */
static int load_automaton_progress(State *s, PyObject *state) {
    PyObject *item = PySequence_GetItem(state, 18);
    if (!item) return -1;
    if (item != Py_None) {
        long a, b, c;
        if (get_long(item, 0, -1000000, 1000000, "automaton cost spent", &a) ||
            get_long(item, 1, 0, 1000000, "automaton lane slot", &b) ||
            get_long(item, 2, 0, 1000000, "automaton cards revealed", &c)) {
            Py_DECREF(item);
            return -1;
        }
        s->auto_on = 1;
        s->auto_spent = (int32_t)a;
        s->auto_slot = (int32_t)b;
        s->auto_shown = (int32_t)c;
    }
    Py_DECREF(item);
    return 0;
}

/* state[20], the RNG state ``seed << 32 | counter``: 0..2**96-1. */
static int load_rng(State *s, PyObject *state) {
    PyObject *item = PySequence_GetItem(state, 20);
    if (!item) return -1;
    PyObject *mask = PyLong_FromUnsignedLongLong(0xffffffffULL);
    PyObject *shift = PyLong_FromLong(32);
    PyObject *lo = mask && PyLong_Check(item) ? PyNumber_And(item, mask) : NULL;
    PyObject *hi = shift && PyLong_Check(item) ? PyNumber_Rshift(item, shift) : NULL;
    PyObject *zero = PyLong_FromLong(0);
    int bad = !lo || !hi || !zero || PyObject_RichCompareBool(item, zero, Py_LT) != 0;
    Py_XDECREF(zero);
    unsigned long long l = 0, h = 0;
    if (!bad) {
        l = PyLong_AsUnsignedLongLong(lo);
        h = PyLong_AsUnsignedLongLong(hi);
        bad = PyErr_Occurred() != NULL;
    }
    Py_XDECREF(mask);
    Py_XDECREF(shift);
    Py_XDECREF(lo);
    Py_XDECREF(hi);
    Py_DECREF(item);
    if (bad) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "rng must be an integer in 0..2**96-1");
        return -1;
    }
    s->rng_counter = (uint32_t)l;
    s->rng_seed = (uint64_t)h;
    return 0;
}

/* Consistency the fixed-size arrays rely on: each card at most once among a player's things
 * (in the custom format both players may own the same card). */
static int check_unique_cards(const State *s) {
    uint64_t seen[2] = {0, 0};
    int dup = 0;
#define SEE(owner, c)                           \
    do {                                        \
        int c_ = (c);                           \
        if (c_ < N_CARDS) {                     \
            if (seen[owner] >> c_ & 1) dup = 1; \
            seen[owner] |= 1ULL << c_;          \
        }                                       \
    } while (0)
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < s->hand_len[p]; i++) SEE(p, s->hands[p][i]);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < s->lane_len[k]; i++) SEE(k >> 1, s->lanes[k][i].card);
    for (int i = 0; i < s->deck_len; i++) SEE(1, s->deck[i]);
    for (int i = 0; i < s->discard_len; i++) SEE(1, s->discard[i]);
    if (s->pending_player != NONE)
        for (int i = 0; i < s->pending_n; i++) SEE(s->pending_player, s->pending[i]);
    if (s->cast_p != NONE) SEE(s->cast_p, s->cast_c);
#undef SEE
    if (dup) {
        PyErr_SetString(PyExc_ValueError, "a card is in two places at once");
        return -1;
    }
    return 0;
}

/* state[10], state[11]: per player a bit per card whose hand place is public (R9.2). */
static int load_known(State *s, PyObject *state) {
    for (int p = 0; p < 2; p++) {
        PyObject *item = PySequence_GetItem(state, 10 + p);
        if (!item) return -1;
        unsigned long long k = PyLong_AsUnsignedLongLong(item);
        Py_DECREF(item);
        if (k == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "known must be integers in 0..2**64-1");
            return -1;
        }
        s->known[p] = k;
    }
    return 0;
}

/* The fortress cards: one per hand that plays (duel: both; solo: the player's), the automaton's
 * at the bottom of its deck; the fort flags follow from them as rules/core.py's GameCore._set_state says. */
static int check_fortresses(State *s) {
    for (int p = 0; p < 2; p++) {
        int forts = 0, flips = 0;
        for (int i = 0; i < s->hand_len[p]; i++) {
            forts += s->hands[p][i] >= BASTION;
            flips += s->hands[p][i] == FORT;
        }
        if (s->solo && p == 1) {
            int bad = s->hand_len[1] != 0 || s->deck_len < 1 || s->deck[s->deck_len - 1] < BASTION;
            for (int i = 0; i + 1 < s->deck_len && !bad; i++) bad = s->deck[i] >= BASTION;
            if (bad) {
                PyErr_SetString(PyExc_ValueError,
                                "solo: the automaton has no hand and its deck ends with its fortress card");
                return -1;
            }
            s->fort[1] = s->deck[s->deck_len - 1] == FORT;
        } else {
            if (forts != 1) {
                PyErr_Format(PyExc_ValueError, "hand %d must hold exactly one fortress card", p);
                return -1;
            }
            s->fort[p] = flips == 1;
        }
    }
    if (!s->solo && (s->deck_len || s->discard_len)) {
        PyErr_SetString(PyExc_ValueError, "a duel has no automaton deck or discard");
        return -1;
    }
    return 0;
}

/* The rule options (see core_load's config tuple). */
static int load_config(State *s, PyObject *config) {
    long v;
    if (get_long(config, 0, 0, 1, "solo", &v)) return -1;
    s->solo = (uint8_t)v;
    if (get_long(config, 1, 0, 1, "rotated", &v)) return -1;
    s->rotated = (uint8_t)v;
    if (get_long(config, 2, 0, 1, "timing_combat", &v)) return -1;
    s->timing_combat = (uint8_t)v;
    if (get_long(config, 3, 0, 1, "prot_any", &v)) return -1;
    s->prot_any = (uint8_t)v;
    if (get_long(config, 4, 0, 1, "per_card", &v)) return -1;
    s->per_card = (uint8_t)v;
    if (get_long(config, 5, 0, 1, "defence_minus_one", &v)) return -1;
    s->defence_minus_one = (uint8_t)v;
    if (get_long(config, 6, 0, 127, "threat_bits", &v)) return -1;
    s->threat_bits = (uint8_t)v;
    if (get_long(config, 7, 0, 1000, "base_mana", &v)) return -1;
    s->base_mana = (int32_t)v;
    if (get_long(config, 8, 0, 1000, "extra_mana", &v)) return -1;
    s->extra_mana = (int32_t)v;
    if (get_long(config, 9, -1, 0x7fffffffL, "max_turns", &v)) return -1;
    s->max_turns = (int32_t)v;
    return 0;
}

/* Config tuple: (solo, rotated, timing_combat, prot_any, per_card, defence_minus_one, threat_bits,
 *                base_mana, extra_mana, max_turns or -1)
 * State tuple: see core_export (the same layout). */
static int core_load(State *s, PyObject *config, PyObject *state) {
    long v;
    memset(s, 0, sizeof *s);
    if (!PySequence_Check(config) || PySequence_Size(config) != 10 || !PySequence_Check(state) ||
        PySequence_Size(state) != 21) {
        PyErr_SetString(PyExc_ValueError, "Core(config, state): a 10-tuple and a 21-tuple");
        return -1;
    }
    if (load_config(s, config)) return -1;

    if (get_long(state, 0, SUMMON, OVER, "stage", &v)) return -1;
    s->stage = (uint8_t)v;
    if (load_turn(s, state)) return -1;
    if (get_long(state, 2, 0, 1, "active", &v)) return -1;
    s->active = (uint8_t)v;
    if (get_long(state, 3, -1000000, 1000000, "mana", &v)) return -1;
    s->mana = (int32_t)v;
    if (get_long(state, 4, -1, 2, "winner", &v)) return -1;
    s->winner = v < 0 ? NONE : (uint8_t)v;
    if (get_long(state, 5, 0, 3, "termination", &v)) return -1;
    s->termination = (uint8_t)v;
    if (get_long(state, 6, 0, 3, "over_phase", &v)) return -1;
    s->over_phase = (uint8_t)v;
    if (get_cards(state, 7, HAND_CAP, FORT, "hand 0", s->hands[0], &s->hand_len[0])) return -1;
    if (get_cards(state, 8, HAND_CAP, FORT, "hand 1", s->hands[1], &s->hand_len[1])) return -1;
    if (load_lanes(s, state)) return -1;
    if (load_known(s, state)) return -1;
    if (get_cards(state, 12, DECK_CAP - 1, FORT, "the automaton's deck", s->deck, &s->deck_len)) return -1;
    if (get_cards(state, 13, DECK_CAP - 1, N_CARDS - 1, "the automaton's discard", s->discard,
                  &s->discard_len))
        return -1;
    if (load_pending(s, state)) return -1;
    if (get_opt_pair(state, 15, "resolving", &s->cast_p, &s->cast_c)) return -1;
    if (get_opt_pair(state, 16, "attacker", &s->chain_p, &s->chain_c)) return -1;
    if (get_long(state, 17, 0, 1, "ending", &v)) return -1;
    s->ending = (uint8_t)v;
    if (load_automaton_progress(s, state)) return -1;
    if (get_long(state, 19, 0, 1, "last_turn", &v)) return -1;
    s->last_turn = (uint8_t)v;
    if (load_rng(s, state)) return -1;
    if (check_unique_cards(s)) return -1;
    if (check_fortresses(s)) return -1;
    return 0;
}

static PyObject *cards_tuple(const uint8_t *cards, int n) {
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(cards[i]));
    return t;
}

static PyObject *opt_pair(uint8_t a, uint8_t b) {
    if (a == NONE) Py_RETURN_NONE;
    return Py_BuildValue("(ii)", a, b);
}

static PyObject *core_export(CoreObject *self, PyObject *Py_UNUSED(ignored)) {
    const State *s = &self->s;
    PyObject *lanes = PyTuple_New(4);
    if (!lanes) return NULL;
    for (int k = 0; k < 4; k++) {
        PyObject *L = PyTuple_New(s->lane_len[k]);
        if (!L) {
            Py_DECREF(lanes);
            return NULL;
        }
        for (int i = 0; i < s->lane_len[k]; i++) {
            const Creature *c = &s->lanes[k][i];
            PyTuple_SET_ITEM(L, i,
                             Py_BuildValue("(iiNNNi)", c->card, c->damage, PyBool_FromLong(c->flags & F_NEW),
                                           PyBool_FromLong(c->flags & F_PROT), PyBool_FromLong(c->flags & F_ACT),
                                           c->sprint));
        }
        PyTuple_SET_ITEM(lanes, k, L);
    }
    PyObject *winner = s->winner == NONE ? (Py_INCREF(Py_None), Py_None) : PyLong_FromLong(s->winner);
    PyObject *pending;
    if (s->pending_player == NONE) {
        Py_INCREF(Py_None);
        pending = Py_None;
    } else {
        pending = Py_BuildValue("(iN)", s->pending_player, cards_tuple(s->pending, s->pending_n));
    }
    PyObject *autom;
    if (!s->auto_on) {
        Py_INCREF(Py_None);
        autom = Py_None;
    } else {
        autom = Py_BuildValue("(iii)", s->auto_spent, s->auto_slot, s->auto_shown);
    }
    PyObject *rng_hi = PyLong_FromUnsignedLongLong(s->rng_seed);
    PyObject *shift = PyLong_FromLong(32);
    PyObject *shifted = PyNumber_Lshift(rng_hi, shift);
    PyObject *lo = PyLong_FromUnsignedLong(s->rng_counter);
    PyObject *rng = PyNumber_Or(shifted, lo);
    Py_XDECREF(rng_hi);
    Py_XDECREF(shift);
    Py_XDECREF(shifted);
    Py_XDECREF(lo);
    return Py_BuildValue("(iLiiNiiNNNKKNNNNNNNNN)", s->stage, (long long)s->turn, s->active, s->mana, winner,
                         s->termination, s->over_phase, cards_tuple(s->hands[0], s->hand_len[0]),
                         cards_tuple(s->hands[1], s->hand_len[1]), lanes, (unsigned long long)s->known[0],
                         (unsigned long long)s->known[1], cards_tuple(s->deck, s->deck_len),
                         cards_tuple(s->discard, s->discard_len), pending, opt_pair(s->cast_p, s->cast_c),
                         opt_pair(s->chain_p, s->chain_c), PyBool_FromLong(s->ending), autom,
                         PyBool_FromLong(s->last_turn), rng);
}

static PyObject *core_config(CoreObject *self, PyObject *Py_UNUSED(ignored)) {
    const State *s = &self->s;
    return Py_BuildValue("(iiiiiiiiii)", s->solo, s->rotated, s->timing_combat, s->prot_any, s->per_card,
                         s->defence_minus_one, s->threat_bits, s->base_mana, s->extra_mana, s->max_turns);
}

static int core_init(CoreObject *self, PyObject *args, PyObject *kwds) {
    PyObject *config, *state;
    static char *kwlist[] = {"config", "state", NULL};
    if (!cards_ready) {
        NotReady();
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO", kwlist, &config, &state)) return -1;
    State loaded; /* all or nothing: a refused state leaves the object as it was */
    if (core_load(&loaded, config, state) < 0) return -1;
    self->s = loaded;
    return 0;
}

static PyObject *core_legal_actions(CoreObject *self, PyObject *Py_UNUSED(ignored)) {
    int legal[MAX_LEGAL];
    int n = compute_legal(&self->s, legal);
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(legal[i]));
    return t;
}

static int is_legal_now(CoreObject *self, long action) {
    int legal[MAX_LEGAL];
    int n = compute_legal(&self->s, legal);
    for (int i = 0; i < n; i++)
        if (legal[i] == action) return 1;
    return 0;
}

static PyObject *core_is_legal(CoreObject *self, PyObject *arg) {
    long a = PyLong_AsLong(arg);
    if (a == -1 && PyErr_Occurred()) return NULL;
    return PyBool_FromLong(is_legal_now(self, a));
}

static PyObject *core_apply(CoreObject *self, PyObject *arg) {
    long a = PyLong_AsLong(arg);
    if (a == -1 && PyErr_Occurred()) return NULL;
    if (!is_legal_now(self, a)) {
        PyErr_Format(PyExc_ValueError, "action %ld is not legal now", a);
        return NULL;
    }
    dispatch(&self->s, (int)a);
    Py_RETURN_NONE;
}

static PyObject *core_copy(CoreObject *self, PyObject *Py_UNUSED(ignored)) {
    CoreObject *o = core_new_empty();
    if (!o) return NULL;
    o->s = self->s;
    return (PyObject *)o;
}

static PyObject *core_resume(CoreObject *self, PyObject *Py_UNUSED(ignored)) {
    resume_state(&self->s);
    Py_RETURN_NONE;
}

static PyObject *core_playout(CoreObject *self, PyObject *args) {
    unsigned long long seed;
    long long max_actions = 1LL << 62;
    if (!PyArg_ParseTuple(args, "K|L", &seed, &max_actions)) return NULL;
    uint64_t gen = seed;
    long n = playout(&self->s, &gen, (long)max_actions);
    return PyLong_FromLong(n);
}

/* rollout(rnd, max_actions, turn_limit=-1): the search's random rollout (agents/mcts.py) inside C,
 * drawing from the caller's generator exactly as the Python loop does: rnd() is called only when
 * more than one action is legal, and legal[int(rnd() * n)] is played.  Stops when the game is over,
 * when the turn passes turn_limit (>= 0), or after max_actions; returns the actions played. */
static PyObject *core_rollout(CoreObject *self, PyObject *args) {
    PyObject *rnd;
    long long max_actions, turn_limit = -1;
    if (!PyArg_ParseTuple(args, "OL|L", &rnd, &max_actions, &turn_limit)) return NULL;
    State *s = &self->s;
    int legal[MAX_LEGAL];
    long long played = 0;
    while (played < max_actions && s->stage != OVER && (turn_limit < 0 || s->turn <= turn_limit)) {
        int n = compute_legal(s, legal);
        int pick = 0;
        if (!n) break; /* an unloaded Core (Core.__new__): no decision to make */
        if (n > 1) {
            PyObject *r = PyObject_CallNoArgs(rnd);
            if (!r) return NULL;
            double x = PyFloat_AsDouble(r);
            Py_DECREF(r);
            if (x == -1.0 && PyErr_Occurred()) return NULL;
            pick = (int)(x * n);
            if (!(x >= 0.0 && x < 1.0) || pick >= n) {
                PyErr_SetString(PyExc_ValueError, "rollout: rnd() must return a float in [0, 1)");
                return NULL;
            }
        }
        dispatch(s, legal[pick]);
        played++;
    }
    return PyLong_FromLongLong(played);
}

static PyObject *core_get_current_player(CoreObject *self, void *c) {
    (void)c;
    return PyLong_FromLong(current_player(&self->s));
}
static PyObject *core_get_stage(CoreObject *self, void *c) {
    (void)c;
    return PyLong_FromLong(self->s.stage);
}
static PyObject *core_get_turn(CoreObject *self, void *c) {
    (void)c;
    return PyLong_FromLongLong(self->s.turn);
}
static PyObject *core_get_active(CoreObject *self, void *c) {
    (void)c;
    return PyLong_FromLong(self->s.active);
}
static PyObject *core_get_mana(CoreObject *self, void *c) {
    (void)c;
    return PyLong_FromLong(self->s.mana);
}
static PyObject *core_get_winner(CoreObject *self, void *c) {
    (void)c;
    if (self->s.winner == NONE) Py_RETURN_NONE;
    return PyLong_FromLong(self->s.winner);
}
static PyObject *core_get_termination(CoreObject *self, void *c) {
    (void)c;
    return PyLong_FromLong(self->s.termination);
}

static PyObject *core_determinize(CoreObject *self, PyObject *args);
static PyObject *core_evaluate(CoreObject *self, PyObject *args);
static PyObject *core_greedy_action(CoreObject *self, PyObject *args);
static PyObject *core_greedy_rollout(CoreObject *self, PyObject *args);
static PyObject *core_search(CoreObject *self, PyObject *args);
static PyObject *core_learned_features(CoreObject *self, PyObject *args);
static PyObject *core_learned_win_chance(CoreObject *self, PyObject *args);
static PyObject *core_net_evaluate(CoreObject *self, PyObject *args);
static PyObject *core_net_search(CoreObject *self, PyObject *args);

static PyMethodDef core_methods[] = {
    {"export", (PyCFunction)core_export, METH_NOARGS, "The state tuple (the layout Core() takes)."},
    {"config", (PyCFunction)core_config, METH_NOARGS, "The configuration tuple (the layout Core() takes)."},
    {"legal_actions", (PyCFunction)core_legal_actions, METH_NOARGS, "Legal actions, sorted."},
    {"is_legal", (PyCFunction)core_is_legal, METH_O, "Whether an action is legal now."},
    {"apply", (PyCFunction)core_apply, METH_O, "Apply a legal action (ValueError if not legal)."},
    {"copy", (PyCFunction)core_copy, METH_NOARGS, "An independent copy."},
    {"determinize", (PyCFunction)core_determinize, METH_VARARGS,
     "determinize(player, getrandbits, hidden_identities): rules.Game.sample_determinization's sample."},
    {"resume", (PyCFunction)core_resume, METH_NOARGS, "rules.Game.resume: the automaton's pending turn."},
    {"rollout", (PyCFunction)core_rollout, METH_VARARGS,
     "rollout(rnd, max_actions, turn_limit=-1): random actions drawn from rnd() as agents/mcts.py does."},
    {"net_evaluate", (PyCFunction)core_net_evaluate, METH_VARARGS,
     "net_evaluate(net, seat, layout, threat, hidden_ids, context, learned) -> (observation, logits, chance)"},
    {"net_search", (PyCFunction)core_net_search, METH_VARARGS,
     "net_search(net, player, mt_state, iterations, c, hidden_ids, layout, threat, context, learned, "
     "cutoff_turns, max_rollout_actions, value_weight[, noise, noise_alpha, fpu_cut]) -> ((iterations, mt_state, stats), evaluations)"},
    {"search", (PyCFunction)core_search, METH_VARARGS,
     "search(player, mt_state, iterations, deadline, clock, c, perfect_information, hidden_identities, "
     "cutoff_turns, max_rollout_actions, score): agents/mcts.py's Search.run with random rollouts."},
    {"playout", (PyCFunction)core_playout, METH_VARARGS,
     "playout(seed, max_actions=2**62): uniform random actions (SplitMix64 from seed) to the end."},
    {"evaluate", (PyCFunction)core_evaluate, METH_VARARGS, "evaluate(player, weights): greedy.evaluate."},
    {"learned_features", (PyCFunction)core_learned_features, METH_VARARGS,
     "learned_features(seat, packed_model): agents/evaluation.features."},
    {"learned_win_chance", (PyCFunction)core_learned_win_chance, METH_VARARGS,
     "learned_win_chance(seat, packed_model): EvaluationModel.win_chance."},
    {"greedy_action", (PyCFunction)core_greedy_action, METH_VARARGS,
     "greedy_action(getrandbits, hidden_identities, weights, finish_turn): GreedyAgent.act's play-phase choice."},
    {"greedy_rollout", (PyCFunction)core_greedy_rollout, METH_VARARGS,
     "greedy_rollout(rnd, weights, max_actions, turn_limit=-1): the search's greedy rollout."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef core_getset[] = {
    {"current_player", (getter)core_get_current_player, NULL, "Whose decision it is; -1 when over.", NULL},
    {"stage", (getter)core_get_stage, NULL, "rules.SUMMON, COMBAT or OVER.", NULL},
    {"turn", (getter)core_get_turn, NULL, "The turn number.", NULL},
    {"active", (getter)core_get_active, NULL, "Whose turn it is.", NULL},
    {"mana", (getter)core_get_mana, NULL, "Mana left.", NULL},
    {"winner", (getter)core_get_winner, NULL, "0, 1, 2 (draw) or None.", NULL},
    {"termination", (getter)core_get_termination, NULL, "Index into rules.Termination.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ------------------------------------------------------------------ CPython's random.Random in C
 *
 * MT19937 with CPython's output functions (Modules/_randommodule.c): genrand_uint32, random() from
 * two words (27 + 26 bits), getrandbits(k) (k <= 32: one word shifted; more: 32-bit words, least
 * significant first) and _randbelow_with_getrandbits.  The search moves the caller's generator in
 * with rng.getstate() and out with rng.setstate(), so it draws exactly what the Python search would
 * and leaves the generator in the same state. */

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t mt[MT_N];
    int index;
} MTState;

static uint32_t mt_next(MTState *g) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    if (g->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (g->mt[kk] & 0x80000000U) | (g->mt[kk + 1] & 0x7fffffffU);
            g->mt[kk] = g->mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 1U];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (g->mt[kk] & 0x80000000U) | (g->mt[kk + 1] & 0x7fffffffU);
            g->mt[kk] = g->mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 1U];
        }
        y = (g->mt[MT_N - 1] & 0x80000000U) | (g->mt[0] & 0x7fffffffU);
        g->mt[MT_N - 1] = g->mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1U];
        g->index = 0;
    }
    y = g->mt[g->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* random.Random.random() */
static double mt_random(MTState *g) {
    uint32_t a = mt_next(g) >> 5, b = mt_next(g) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* random.Random.getrandbits(k) for 1 <= k <= 64 */
static uint64_t mt_getrandbits(MTState *g, int k) {
    if (k <= 32) return mt_next(g) >> (32 - k);
    uint64_t lo = mt_next(g);
    uint64_t hi = mt_next(g) >> (64 - k);
    return lo | hi << 32;
}

/* random.Random._randbelow_with_getrandbits(n) for n >= 1 (randrange(n)) */
static int mt_below(MTState *g, int n) {
    int k = 0;
    while ((n >> k) != 0) k++; /* n.bit_length() */
    uint32_t r = mt_next(g) >> (32 - k);
    while (r >= (uint32_t)n) r = mt_next(g) >> (32 - k);
    return (int)r;
}

/* The internal state of rng.getstate() (624 words and the index) in and out. */
static int mt_load(MTState *g, PyObject *internal) {
    PyObject *t = PySequence_Fast(internal, "search: the generator state must be a sequence");
    if (!t) return -1;
    if (PySequence_Fast_GET_SIZE(t) != MT_N + 1) {
        Py_DECREF(t);
        PyErr_SetString(PyExc_ValueError, "search: the generator state needs 625 integers (rng.getstate()[1])");
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(t);
    for (int i = 0; i <= MT_N; i++) {
        unsigned long v = PyLong_AsUnsignedLong(items[i]);
        if ((v == (unsigned long)-1 && PyErr_Occurred()) || v > 0xffffffffUL || (i == MT_N && v > MT_N)) {
            Py_DECREF(t);
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "search: the generator state is not random.Random's");
            return -1;
        }
        if (i < MT_N)
            g->mt[i] = (uint32_t)v;
        else
            g->index = (int)v;
    }
    Py_DECREF(t);
    return 0;
}

static PyObject *mt_export(const MTState *g) {
    PyObject *t = PyTuple_New(MT_N + 1);
    if (!t) return NULL;
    for (int i = 0; i <= MT_N; i++) {
        PyObject *v = PyLong_FromUnsignedLong(i < MT_N ? g->mt[i] : (unsigned long)g->index);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* ------------------------------------------------------------------ determinization (R9)
 *
 * rules.Game.sample_determinization with the caller's random.Random: its draws are made exactly as
 * random.Random._randbelow, shuffle and sample make them (CPython 3.11+), either through the
 * caller's rng.getrandbits (Core.determinize) or with the generator above (Core.search), so the
 * same generator gives the same sample in both engines. */

typedef struct {
    PyObject *getrandbits; /* a Python rng.getrandbits, or NULL: draw from mt */
    MTState *mt;
} Bits;

/* getrandbits(k), 1 <= k <= 64 */
static int bits_draw(Bits *r, int k, uint64_t *out) {
    if (!r->getrandbits) {
        *out = mt_getrandbits(r->mt, k);
        return 0;
    }
    PyObject *bits = PyLong_FromLong(k);
    if (!bits) return -1;
    PyObject *v = PyObject_CallOneArg(r->getrandbits, bits);
    Py_DECREF(bits);
    if (!v) return -1;
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    Py_DECREF(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = (uint64_t)x;
    return 0;
}

static int rb_below(Bits *r, int n, int *out) {
    if (!r->getrandbits) {
        *out = mt_below(r->mt, n);
        return 0;
    }
    int k = 0;
    while ((n >> k) != 0) k++; /* n.bit_length() */
    for (;;) {
        uint64_t v;
        if (bits_draw(r, k, &v)) return -1;
        if (v < (uint64_t)n) {
            *out = (int)v;
            return 0;
        }
    }
}

static int rb_shuffle(Bits *r, uint8_t *x, int n) {
    for (int i = n - 1; i >= 1; i--) {
        int j;
        if (rb_below(r, i + 1, &j)) return -1;
        uint8_t t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
    return 0;
}

static int rb_sample(Bits *r, const uint8_t *population, int n, int k, uint8_t *out) {
    /* random.sample: setsize = 21 + 4 ** ceil(log(3k, 4)) for k > 5; 3k is never a power of 4, so
     * that power is the smallest one at least 3k (integers, no floating point). */
    long setsize = 21;
    if (k > 5) {
        long power = 1;
        while (power < 3L * k) power *= 4;
        setsize += power;
    }
    if (n <= setsize) {
        uint8_t pool[N_CARDS];
        memcpy(pool, population, (size_t)n);
        for (int i = 0; i < k; i++) {
            int j;
            if (rb_below(r, n - i, &j)) return -1;
            out[i] = pool[j];
            pool[j] = pool[n - i - 1];
        }
    } else {
        uint64_t selected = 0;
        for (int i = 0; i < k; i++) {
            int j;
            do {
                if (rb_below(r, n, &j)) return -1;
            } while (selected >> j & 1);
            selected |= 1ULL << j;
            out[i] = population[j];
        }
    }
    return 0;
}

static void sort_bytes(uint8_t *x, int n) {
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && x[b - 1] > x[b]; b--) {
            uint8_t t = x[b];
            x[b] = x[b - 1];
            x[b - 1] = t;
        }
}

/* rules.Game.sample_determinization of the play phase on s, step for step (a new chance seed first,
 * then the hidden things refilled); -1 with a Python exception set on failure (only when drawing
 * from a Python getrandbits), -2 (no exception set) when the hidden places outnumber the unseen cards. */
static int determinize_state(State *s, int player, int hidden_ids, Bits *r) {
    uint64_t seed;
    if (bits_draw(r, 64, &seed)) return -1;
    s->rng_seed = seed; /* rules.seed_rng: seed << 32, counter 0 */
    s->rng_counter = 0;
    if (s->solo) {
        if (player == 0 && s->deck_len > 1) {
            int n = s->deck_len - 1;
            sort_bytes(s->deck, n);
            if (rb_shuffle(r, s->deck, n)) return -1;
        }
    } else {
        int opp = 1 - player;
        uint8_t *hand = s->hands[opp];
        int slots[HAND_CAP], ns = 0;
        for (int i = 0; i < s->hand_len[opp]; i++) {
            int c = hand[i];
            if (c < N_CARDS && !(s->known[opp] >> c & 1)) slots[ns++] = i;
        }
        uint8_t cards[HAND_CAP];
        if (hidden_ids) {
            uint64_t seen = 0;
            for (int i = 0; i < s->hand_len[player]; i++)
                if (s->hands[player][i] < N_CARDS) seen |= 1ULL << s->hands[player][i];
            for (int k = 0; k < 4; k++)
                for (int i = 0; i < s->lane_len[k]; i++) seen |= 1ULL << s->lanes[k][i].card;
            if (s->pending_player != NONE)
                for (int i = 0; i < s->pending_n; i++) seen |= 1ULL << s->pending[i];
            if (s->cast_p != NONE) seen |= 1ULL << s->cast_c;
            for (int i = 0, x = 0; i < s->hand_len[opp]; i++) {
                if (x < ns && slots[x] == i) {
                    x++;
                    continue;
                }
                if (hand[i] < N_CARDS) seen |= 1ULL << hand[i];
            }
            uint8_t unseen[N_CARDS];
            int nu = 0;
            for (int c = 0; c < N_CARDS; c++)
                if (!(seen >> c & 1)) unseen[nu++] = (uint8_t)c;
            if (ns > nu) return -2; /* the caller raises (it may not hold the GIL) */
            if (rb_sample(r, unseen, nu, ns, cards)) return -1;
        } else {
            for (int x = 0; x < ns; x++) cards[x] = hand[slots[x]];
            sort_bytes(cards, ns);
            if (rb_shuffle(r, cards, ns)) return -1;
        }
        for (int x = 0; x < ns; x++) hand[slots[x]] = cards[x];
    }
    return 0;
}

/* determinize(player, getrandbits, hidden_identities) -> a new Core (the sample). */
static PyObject *core_determinize(CoreObject *self, PyObject *args) {
    int player, hidden_ids;
    PyObject *getrandbits;
    if (!PyArg_ParseTuple(args, "iOp", &player, &getrandbits, &hidden_ids)) return NULL;
    if (player != 0 && player != 1) {
        PyErr_SetString(PyExc_ValueError, "determinize: player is 0 or 1");
        return NULL;
    }
    State s = self->s;
    Bits r = {getrandbits, NULL};
    int failed = determinize_state(&s, player, hidden_ids, &r);
    if (failed == -2) PyErr_SetString(PyExc_ValueError, "Sample larger than population or is negative");
    if (failed) return NULL;
    CoreObject *o = core_new_empty();
    if (!o) return NULL;
    o->s = s;
    return (PyObject *)o;
}

/* ------------------------------------------------------------------ the greedy heuristic (agents/greedy.py)
 *
 * greedy.evaluate, incoming_hits and fortress_after over the flat state, the greedy agent's
 * play-phase decision (GreedyAgent.act) and the search's greedy rollout (mcts._greedy_choice in the
 * rollout loop), each the Python function's steps in the same order.  The score is the same double:
 * every product and sum is the Python expression's, operand for operand (int -> double conversions
 * are exact here), and setup.py compiles with -ffp-contract=off so no multiply-add is fused.  The
 * weights are not compiled in: the caller hands greedy.Weights over as 9 floats in field order.
 * Fairness (R9): evaluate reads what the Python one reads (fortress positions, boards, hand sizes,
 * the automaton's deck and discard sizes, the scored player's own 4 leftmost cards). */

#include <math.h> /* HUGE_VAL */

#define G_WIN 1e9
#define G_WEIGHTS 9

typedef struct {
    double life, bastion, attack, health, ability, threat, lethal, mana, playable;
} GreedyWeights;

/* n numbers of a Python sequence into dst; on failure -1 with TypeError(not_sequence) for a
 * non-sequence, ValueError(wrong_size) for another length, or the float conversion's error. */
static int seq_doubles(PyObject *seq, int n, double *dst, const char *not_sequence, const char *wrong_size) {
    PyObject *fast = PySequence_Fast(seq, not_sequence);
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, wrong_size);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        dst[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i));
        if (dst[i] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

static int g_weights(PyObject *seq, GreedyWeights *w) {
    double v[G_WEIGHTS];
    if (seq_doubles(seq, G_WEIGHTS, v, "weights must be a sequence of 9 numbers",
                    "weights must be a sequence of 9 numbers (greedy.Weights' fields)"))
        return -1;
    w->life = v[0], w->bastion = v[1], w->attack = v[2], w->health = v[3], w->ability = v[4];
    w->threat = v[5], w->lethal = v[6], w->mana = v[7], w->playable = v[8];
    return 0;
}

static int g_popcount(int bits) {
    int n = 0;
    for (; bits; bits >>= 1) n += bits & 1;
    return n;
}

/* greedy._bits: printed abilities, an adjacent Aura's (R6.8), plus extra. */
static int g_bits(const Creature *L, int n, int i, int extra) {
    int bits = ABIL[L[i].card] | extra;
    if (i) bits |= AURA[L[i - 1].card];
    if (i + 1 < n) bits |= AURA[L[i + 1].card];
    return bits;
}

/* greedy.incoming_hits: the attacks attacker's creatures would land on the fortress in one combat
 * (an estimate, not the rules); threat[p] is player p's extra abilities.  At most one hit per
 * creature: hits holds 2 * LANE_CAP. */
static int g_incoming_hits(const State *s, int attacker, const int threat[2], int *hits) {
    int nh = 0, defender = 1 - attacker;
    for (int lane = 0; lane < 2; lane++) {
        const Creature *own = s->lanes[attacker * 2 + lane], *theirs = s->lanes[defender * 2 + lane];
        int n_own = s->lane_len[attacker * 2 + lane], n = s->lane_len[defender * 2 + lane];
        int health[LANE_CAP], shield[LANE_CAP];
        for (int k = 0; k < n; k++) {
            health[k] = HEALTH[theirs[k].card] - theirs[k].damage;
            shield[k] = (g_bits(theirs, n, k, threat[defender]) & PROTECTION) != 0;
        }
        int b = 0;
        for (int i = n_own - 1; i >= 0; i--) {
            int bits = g_bits(own, n_own, i, threat[attacker]);
            int attack = ATTACK[own[i].card] + ((bits & SPRINT) ? i : 0);
            for (;;) {
                if (b >= n) {
                    if (attack > 0) hits[nh++] = attack;
                    break;
                }
                int killed;
                if (shield[b]) {
                    shield[b] = 0;
                    killed = 0;
                } else {
                    health[b] -= attack;
                    killed = health[b] <= 0;
                }
                if ((bits & PERFORATION) && b + 1 < n) {
                    health[b + 1] -= attack;
                    if (health[b + 1] <= 0) {
                        killed = 1;
                        for (int k = b + 1; k + 1 < n; k++) {
                            health[k] = health[k + 1];
                            shield[k] = shield[k + 1];
                        }
                        n--;
                    }
                }
                if (health[b] <= 0) b++;
                if (!(killed && (bits & BERSERK))) break;
            }
        }
    }
    return nh;
}

/* greedy.fortress_after: 0 if the Fort falls, else 1 with *bastion and *left updated (R4.2, R4.3). */
static int g_fortress_after(int *bastion, int *left, int size, const int *hits, int nh) {
    for (int i = 0; i < nh; i++) {
        if (hits[i] >= *left) {
            if (!*bastion) return 0;
            *bastion = 0;
            *left = size - 1;
        } else {
            *left -= hits[i];
        }
    }
    return 1;
}

/* greedy.evaluate: the score of the state for player (higher is better). */
static double g_evaluate(const State *s, int player, const GreedyWeights *w) {
    if (s->stage == OVER) {
        if (s->winner != 0 && s->winner != 1) return 0.0;
        return s->winner == player ? G_WIN : -G_WIN;
    }
    int solo = s->solo;
    int threat_bits = solo ? s->threat_bits : 0; /* the sum of the threat's ability bits, as Python's */
    int threat[2] = {0, threat_bits};
    double score = 0.0;
    for (int p = 0; p < 2; p++) {
        int automaton = solo && p == 1;
        int bastion = !s->fort[p], left, size;
        if (automaton) {
            left = s->deck_len - 1;
            size = s->deck_len;
        } else {
            size = s->hand_len[p];
            left = size - 1 - hand_index(s, p, s->fort[p] ? FORT : BASTION);
        }
        int hits[2 * LANE_CAP];
        int nh = g_incoming_hits(s, 1 - p, threat, hits);
        double value;
        if (automaton) {
            int after = bastion ? s->discard_len + left : 0;
            double life = left + w->bastion * after;
            int total = 0;
            for (int i = 0; i < nh; i++) total += hits[i];
            value = w->life * life - w->threat * (left < total ? left : total);
        } else {
            double life = left + (bastion ? w->bastion * (size - 1) : 0);
            value = w->life * life;
            if (nh) {
                int fallen_bastion = bastion, fallen_left = left;
                if (!g_fortress_after(&fallen_bastion, &fallen_left, size, hits, nh)) {
                    value -= w->lethal;
                } else {
                    double life_after = fallen_left + (fallen_bastion ? w->bastion * (size - 1) : 0);
                    value -= w->threat * w->life * (life - life_after);
                }
            }
            value += w->mana * size;
            if (p == player) {
                int playable = 0, seen = 0; /* Game.playable_cards: the 4 leftmost, fortress not counted */
                for (int i = 0; i < s->hand_len[p] && seen < 4; i++) {
                    int c = s->hands[p][i];
                    if (c >= N_CARDS) continue;
                    seen++;
                    playable += COST[c] <= size;
                }
                value += w->playable * playable;
            }
        }
        for (int k = p * 2; k < p * 2 + 2; k++)
            for (int i = 0; i < s->lane_len[k]; i++) {
                int c = s->lanes[k][i].card;
                int bits = ABIL[c] | (automaton ? threat_bits : 0);
                value += w->attack * ATTACK[c] + w->health * (HEALTH[c] - s->lanes[k][i].damage) +
                         w->ability * g_popcount(bits);
            }
        score += p == player ? value : -value;
    }
    return score;
}

/* The best-scoring actions of legal[0..n) on s for player, in legal order (ties kept); finish_turn:
 * after the action, play legal[0] (end, or the first return order) until the turn is over, as
 * GreedyAgent.act does.  An action illegal in s sets *illegal to it (the Python engine would raise). */
static int g_best(const State *s, int player, const int *legal, int n, int finish_turn, const GreedyWeights *w,
                  int *best, long *illegal) {
    int own[MAX_LEGAL], buf[MAX_LEGAL];
    int n_own = compute_legal(s, own);
    int nb = 0;
    double best_score = -HUGE_VAL;
    for (int x = 0; x < n; x++) {
        int found = 0;
        for (int y = 0; y < n_own && !found; y++) found = own[y] == legal[x];
        if (!found) {
            *illegal = legal[x];
            return 0;
        }
        State t = *s;
        int64_t turn = t.turn;
        dispatch(&t, legal[x]);
        if (finish_turn)
            while (t.stage != OVER && t.turn == turn && compute_legal(&t, buf) > 0) dispatch(&t, buf[0]);
        double score = g_evaluate(&t, player, w);
        if (score > best_score) {
            best_score = score;
            best[0] = legal[x];
            nb = 1;
        } else if (score == best_score) {
            best[nb++] = legal[x];
        }
    }
    return nb;
}

static PyObject *g_illegal_error(long action) {
    PyErr_Format(PyExc_ValueError, "greedy: action %ld is not legal in the sampled state", action);
    return NULL;
}

/* evaluate(player, weights) -> float: greedy.evaluate. */
static PyObject *core_evaluate(CoreObject *self, PyObject *args) {
    int player;
    PyObject *weights;
    GreedyWeights w;
    if (!PyArg_ParseTuple(args, "iO", &player, &weights)) return NULL;
    if (player != 0 && player != 1) {
        PyErr_SetString(PyExc_ValueError, "evaluate: player is 0 or 1");
        return NULL;
    }
    if (g_weights(weights, &w)) return NULL;
    return PyFloat_FromDouble(g_evaluate(&self->s, player, &w));
}

/* greedy_action(getrandbits, hidden_identities, weights, finish_turn) -> action: GreedyAgent.act in
 * the play phase with more than one legal action, drawing from the agent's random.Random exactly
 * as it does: the determinization (core_determinize), then randrange(ties) only on a tie. */
static PyObject *core_greedy_action(CoreObject *self, PyObject *args) {
    PyObject *getrandbits, *weights;
    int hidden_ids, finish_turn;
    GreedyWeights w;
    if (!PyArg_ParseTuple(args, "OpOp", &getrandbits, &hidden_ids, &weights, &finish_turn)) return NULL;
    if (g_weights(weights, &w)) return NULL;
    int player = current_player(&self->s);
    int legal[MAX_LEGAL], best[MAX_LEGAL];
    int n = compute_legal(&self->s, legal);
    if (player < 0 || n < 2) {
        PyErr_SetString(PyExc_ValueError, "greedy_action: a decision between at least two actions is needed");
        return NULL;
    }
    PyObject *det_args = Py_BuildValue("(iOO)", player, getrandbits, hidden_ids ? Py_True : Py_False);
    if (!det_args) return NULL;
    CoreObject *sample = (CoreObject *)core_determinize(self, det_args);
    Py_DECREF(det_args);
    if (!sample) return NULL;
    long illegal = -1;
    int nb = g_best(&sample->s, player, legal, n, finish_turn, &w, best, &illegal);
    Py_DECREF(sample);
    if (!nb) return g_illegal_error(illegal);
    int pick = 0;
    Bits tie = {getrandbits, NULL};
    if (nb > 1 && rb_below(&tie, nb, &pick)) return NULL;
    return PyLong_FromLong(best[pick]);
}

/* greedy_rollout(rnd, weights, max_actions, turn_limit=-1): agents/mcts.py's rollout loop with the
 * greedy policy (_greedy_choice: one action, no determinization, ties broken by
 * best[int(rnd() * ties)]), stopping as rollout() does; returns the actions played. */
static PyObject *core_greedy_rollout(CoreObject *self, PyObject *args) {
    PyObject *rnd, *weights;
    long long max_actions, turn_limit = -1;
    GreedyWeights w;
    if (!PyArg_ParseTuple(args, "OOL|L", &rnd, &weights, &max_actions, &turn_limit)) return NULL;
    if (g_weights(weights, &w)) return NULL;
    State work = self->s, *s = &work; /* all or nothing: a refused draw leaves the game as it was */
    int legal[MAX_LEGAL], best[MAX_LEGAL];
    long long played = 0;
    while (played < max_actions && s->stage != OVER && (turn_limit < 0 || s->turn <= turn_limit)) {
        int n = compute_legal(s, legal);
        if (!n) break; /* an unloaded Core (Core.__new__): no decision to make */
        int action = legal[0];
        if (n > 1) {
            long illegal = -1;
            int nb = g_best(s, current_player(s), legal, n, 0, &w, best, &illegal);
            if (!nb) return g_illegal_error(illegal);
            action = best[0];
            if (nb > 1) {
                PyObject *r = PyObject_CallNoArgs(rnd);
                if (!r) return NULL;
                double x = PyFloat_AsDouble(r);
                Py_DECREF(r);
                if (x == -1.0 && PyErr_Occurred()) return NULL;
                int pick = (int)(x * nb);
                if (!(x >= 0.0 && x < 1.0) || pick >= nb) {
                    PyErr_SetString(PyExc_ValueError, "greedy_rollout: rnd() must return a float in [0, 1)");
                    return NULL;
                }
                action = best[pick];
            }
        }
        dispatch(s, action);
        played++;
    }
    self->s = work;
    return PyLong_FromLongLong(played);
}

/* ------------------------------------------------------------------ end of the greedy heuristic */

/* ------------------------------------------------------------------ the learned evaluation (agents/evaluation.py)
 *
 * EvaluationModel.win_chance in C: features() and the two logistic stages, each sum in the same
 * order as the Python loops, so the same double.  The model comes packed by
 * agents/evaluation.EvaluationModel.native_model (the coefficients, the second stage of each
 * perspective, which features feed it), with what is constant in a game (the threat options'
 * features, card_value per card, the greedy weights). */

#define L_FEATURES 37
#define L_STAGE2 17
#define L_THREAT_FIRST 29 /* features 29..34: the solo threat options, passed in */
#define L_THREAT_N 6

typedef struct {
    double stage1[2][L_FEATURES]; /* duel, solo */
    int has_stage2[3];            /* duel (player to move), duel (seat not to move), solo */
    double stage2[3][L_STAGE2];
    int stage2_index[L_STAGE2 - 2];
    double threat[L_THREAT_N];
    double card_value[N_CARDS];
    GreedyWeights weights;
} Learned;

static int l_doubles(PyObject *seq, int n, double *dst, const char *what) {
    char wrong_size[128];
    snprintf(wrong_size, sizeof wrong_size, "learned model: %s must hold %d numbers", what, n);
    return seq_doubles(seq, n, dst, what, wrong_size);
}

/* (duel stage 1, solo stage 1, (stage 2 per perspective or None) x 3, stage-2 feature indices,
 *  threat features, card values, greedy weights) -> *m */
static int l_load(PyObject *packed, Learned *m) {
    PyObject *s1d, *s1s, *s2, *idx, *threat, *values, *weights;
    if (!PyTuple_Check(packed) ||
        !PyArg_ParseTuple(packed, "OOOOOOO", &s1d, &s1s, &s2, &idx, &threat, &values, &weights)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "learned model: a packed tuple of 7 items");
        return -1;
    }
    if (l_doubles(s1d, L_FEATURES, m->stage1[0], "the duel coefficients") ||
        l_doubles(s1s, L_FEATURES, m->stage1[1], "the solo coefficients") ||
        l_doubles(threat, L_THREAT_N, m->threat, "the threat features") ||
        l_doubles(values, N_CARDS, m->card_value, "the card values") || g_weights(weights, &m->weights))
        return -1;
    double index[L_STAGE2 - 2];
    if (l_doubles(idx, L_STAGE2 - 2, index, "the stage-2 feature indices")) return -1;
    for (int i = 0; i < L_STAGE2 - 2; i++) {
        if (!(index[i] >= 0 && index[i] < L_FEATURES) || index[i] != (int)index[i]) {
            PyErr_SetString(PyExc_ValueError, "learned model: a stage-2 feature index out of range");
            return -1;
        }
        m->stage2_index[i] = (int)index[i];
    }
    if (!PyTuple_Check(s2) || PyTuple_GET_SIZE(s2) != 3) {
        PyErr_SetString(PyExc_ValueError, "learned model: three second stages (or None)");
        return -1;
    }
    for (int g = 0; g < 3; g++) {
        PyObject *v = PyTuple_GET_ITEM(s2, g);
        m->has_stage2[g] = v != Py_None;
        if (v != Py_None && l_doubles(v, L_STAGE2, m->stage2[g], "a second stage")) return -1;
    }
    return 0;
}

/* A side's fortress as evaluation.features reads it: Bastion (not yet flipped), places left before it
 * is rightmost, hand size (the automaton: its deck). */
typedef struct {
    int bastion, left, size;
} LSide;

/* evaluation._side_features: side k's (0: seat's, 1: the other's) life, Bastion, hand and creature
 * totals into x; its fortress into *side. */
static void l_side_features(const State *s, int k, int p, int threat_bits, int discard, double *x, LSide *side) {
    int automaton = s->solo && p == 1;
    int bastion = !s->fort[p], left, size;
    if (automaton) {
        left = s->deck_len - 1;
        size = s->deck_len;
    } else {
        size = s->hand_len[p];
        left = size - 1 - hand_index(s, p, s->fort[p] ? FORT : BASTION);
    }
    side->bastion = bastion, side->left = left, side->size = size;
    int extra = bastion ? (automaton ? discard : size - 1) : 0;
    x[7 + k] = (double)(left + extra);
    x[9 + k] = bastion ? 1.0 : 0.0;
    x[11 + k] = (double)size;
    int attack = 0, health = 0, count = 0, abilities = 0;
    for (int lane = p * 2; lane < p * 2 + 2; lane++) {
        const Creature *L = s->lanes[lane];
        int n = s->lane_len[lane];
        for (int i = 0; i < n; i++) {
            int c = L[i].card;
            attack += ATTACK[c];
            health += HEALTH[c] - L[i].damage;
            count++;
            abilities += g_popcount(g_bits(L, n, i, automaton ? threat_bits : 0));
        }
    }
    x[13 + k] = (double)attack;
    x[15 + k] = (double)health;
    x[17 + k] = (double)count;
    x[19 + k] = (double)abilities;
}

/* evaluation._lethal_features: hits and the four lethal features into x (x[4], whose turn, set). */
static void l_lethal_features(const State *s, int seat, const LSide sides[2], int threat_bits, double *x) {
    int threat[2] = {0, threat_bits};
    double lethal[2];
    for (int k = 0; k < 2; k++) {
        int p = k == 0 ? seat : 1 - seat, target = 1 - k;
        int hits[2 * LANE_CAP];
        int nh = g_incoming_hits(s, p, threat, hits);
        int total = 0;
        for (int i = 0; i < nh; i++) total += hits[i];
        int bastion = sides[target].bastion, left = sides[target].left;
        x[21 + k] = (double)(total < left ? total : left);
        lethal[k] = nh && !g_fortress_after(&bastion, &left, sides[target].size, hits, nh) ? 1.0 : 0.0;
    }
    x[23] = lethal[0] * x[4];
    x[24] = lethal[1] * x[4];
    x[25] = lethal[0] * (1.0 - x[4]);
    x[26] = lethal[1] * (1.0 - x[4]);
}

/* evaluation.features(game, seat) of a play-phase (or setup) state. */
static void l_features(const State *s, int seat, const Learned *m, double *x) {
    for (int i = 0; i < L_FEATURES; i++) x[i] = 0.0;
    x[0] = 1.0;
    int solo = s->solo;
    if (solo)
        for (int i = 0; i < L_THREAT_N; i++) x[L_THREAT_FIRST + i] = m->threat[i];
    if (s->stage == SETUP) {
        x[1] = 1.0;
        x[2] = seat == 0 ? 1.0 : 0.0;
        return;
    }
    int other = 1 - seat;
    x[3] = seat == 0 ? 1.0 : 0.0;
    int mine = s->active == seat;
    x[4] = mine ? 1.0 : 0.0;
    x[5] = (double)s->turn / 10.0;
    x[6] = mine ? (double)s->mana / 4.0 : 0.0;
    int threat_bits = solo ? s->threat_bits : 0;
    int discard = solo ? s->discard_len : 0;
    LSide sides[2];
    l_side_features(s, 0, seat, threat_bits, discard, x, &sides[0]);
    l_side_features(s, 1, other, threat_bits, discard, x, &sides[1]);
    l_lethal_features(s, seat, sides, threat_bits, x);
    if (!(solo && seat == 1)) {
        /* sum() over Game.playable_cards (the 4 leftmost, fortress not counted) that it can pay for */
        double value = 0.0;
        for (int i = 0, seen = 0; i < s->hand_len[seat] && seen < 4; i++) {
            int c = s->hands[seat][i];
            if (c >= N_CARDS) continue;
            seen++;
            if (COST[c] <= sides[0].size) value += m->card_value[c];
        }
        x[27] = value / 10.0;
    }
    double h = g_evaluate(s, seat, &m->weights) / 10.0; /* evaluation.HEURISTIC_SCALE */
    x[28] = h > 5.0 ? 5.0 : (h < -5.0 ? -5.0 : h);
    x[35] = (double)discard / 10.0;
    if (!solo && s->active == other) x[36] = (double)s->mana / 4.0;
}

/* evaluation.logistic */
static double l_logistic(double z) {
    if (z >= 0) return 1.0 / (1.0 + exp(-z));
    double e = exp(z);
    return e / (1.0 + e);
}

/* EvaluationModel.win_chance(game, seat) of an unfinished game. */
static double l_win_chance(const State *s, int seat, const Learned *m) {
    double x[L_FEATURES];
    l_features(s, seat, m, x);
    int solo = s->solo;
    double z = 0.0;
    for (int i = 0; i < L_FEATURES; i++) z += m->stage1[solo][i] * x[i];
    int group = solo ? 2 : (seat == current_player(s) ? 0 : 1);
    if (!m->has_stage2[group]) return l_logistic(z);
    const double *v = m->stage2[group];
    double y = 0.0;
    y += v[0] * 1.0;
    y += v[1] * z;
    for (int i = 0; i < L_STAGE2 - 2; i++) y += v[2 + i] * x[m->stage2_index[i]];
    return l_logistic(y);
}

/* The (seat, packed model) arguments of the two methods below; -1 with an exception set. */
static int l_args(PyObject *args, const char *method, int *seat, Learned *m) {
    PyObject *packed;
    if (!PyArg_ParseTuple(args, "iO", seat, &packed)) return -1;
    if (*seat != 0 && *seat != 1) {
        PyErr_Format(PyExc_ValueError, "%s: seat is 0 or 1", method);
        return -1;
    }
    return l_load(packed, m);
}

/* learned_features(seat, packed) -> the 37 features; learned_win_chance(seat, packed) -> float. */
static PyObject *core_learned_features(CoreObject *self, PyObject *args) {
    int seat;
    Learned m;
    if (l_args(args, "learned_features", &seat, &m)) return NULL;
    double x[L_FEATURES];
    l_features(&self->s, seat, &m, x);
    PyObject *out = PyTuple_New(L_FEATURES);
    if (!out) return NULL;
    for (int i = 0; i < L_FEATURES; i++) {
        PyObject *v = PyFloat_FromDouble(x[i]);
        if (!v) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, v);
    }
    return out;
}

static PyObject *core_learned_win_chance(CoreObject *self, PyObject *args) {
    int seat;
    Learned m;
    if (l_args(args, "learned_win_chance", &seat, &m)) return NULL;
    if (self->s.stage == OVER) {
        int w = self->s.winner;
        return PyFloat_FromDouble(w == seat ? 1.0 : (w == 1 - seat ? 0.0 : 0.5));
    }
    return PyFloat_FromDouble(l_win_chance(&self->s, seat, &m));
}

/* ------------------------------------------------------------------ the search tree (agents/mcts.py)
 *
 * Search._iterate and Search.run in C for random rollouts from the play phase: the same tree, the
 * same UCB expression in the same operation order, the same draws from the caller's generator (MT
 * above), rewards added in path order.  Nodes live in one growable pool per search (indices, not
 * pointers, as the pool moves when it grows); a node's children are a list sorted by action, walked
 * in step with the sorted legal actions, so finding every child of a node costs one pass. */

typedef struct {
    int32_t child, sibling; /* first child, next sibling (sorted by action); -1: none */
    int32_t action;
    int32_t player; /* who chose the action that led here (rewards are from this player's view) */
    int64_t visits, avail;
    double wins;
    float prior, value; /* net_search: the network's prior of the action, the node's value (its mover's) */
    int32_t expanded;   /* net_search: the node's children were made with their priors */
} Node;

typedef struct {
    Node *nodes;
    int32_t len, cap;
    int32_t *path;
    int32_t path_len, path_cap;
} Tree;

static int32_t tree_node(Tree *t, int player, int action) {
    if (t->len == t->cap) {
        int32_t cap = t->cap ? t->cap * 2 : 4096;
        if (cap < 0) return -1;
        Node *grown = PyMem_RawRealloc(t->nodes, (size_t)cap * sizeof(Node));
        if (!grown) return -1;
        t->nodes = grown;
        t->cap = cap;
    }
    Node *n = &t->nodes[t->len];
    n->child = n->sibling = -1;
    n->action = action;
    n->player = player;
    n->visits = 0;
    n->avail = 1;
    n->wins = 0.0;
    n->prior = 0.0f;
    n->value = 0.5f;
    n->expanded = 0;
    return t->len++;
}

static int tree_push(Tree *t, int32_t node) {
    if (t->path_len == t->path_cap) {
        int32_t cap = t->path_cap ? t->path_cap * 2 : 256;
        int32_t *grown = PyMem_RawRealloc(t->path, (size_t)cap * sizeof(int32_t));
        if (!grown) return -1;
        t->path = grown;
        t->path_cap = cap;
    }
    t->path[t->path_len++] = node;
    return 0;
}

/* A new child of parent for action, kept in the sorted sibling list; -1 when out of memory. */
static int32_t tree_add_child(Tree *t, int32_t parent, int player, int action) {
    int32_t child = tree_node(t, player, action);
    if (child < 0) return -1;
    Node *nodes = t->nodes;
    int32_t prev = -1, cur = nodes[parent].child;
    while (cur >= 0 && nodes[cur].action < action) {
        prev = cur;
        cur = nodes[cur].sibling;
    }
    nodes[child].sibling = cur;
    if (prev < 0)
        nodes[parent].child = child;
    else
        nodes[prev].sibling = child;
    return child;
}

typedef struct {
    double c;
    long long turns_after; /* rollout cut-off in turns after the leaf's turn; -1: none */
    long long max_rollout; /* the action cap of a rollout */
    PyObject *score;       /* score(Core) -> player 0's reward of an unfinished position, or NULL: */
    const Learned *learned; /* the learned evaluation in C (then the search needs no Python at all), */
    const GreedyWeights *heuristic; /* or the heuristic's logistic in C: 1 / (1 + e^-(clip(h / scale))) */
    double heuristic_scale;
    double mix; /* > 0: the reward is (1 - mix) * the rollout's + mix * the leaf's score */
} SearchSettings;

/* Player 0's reward of a finished game: 1 win, 0 loss, 1/2 draw (mcts._reward). */
static double final_reward(const State *s) { return s->winner == 0 ? 1.0 : (s->winner == 1 ? 0.0 : 0.5); }

static int search_score(const State *s, const SearchSettings *set, double *reward);

/* Search._rollout_in_core with the generator above; -1 with an exception set on failure (only when
 * set->score is a Python callable). */
static int search_rollout(State *s, MTState *g, const SearchSettings *set, double *reward) {
    int legal[MAX_LEGAL];
    long long turn_limit = set->turns_after < 0 ? -1 : s->turn + set->turns_after;
    long long played = 0;
    while (played < set->max_rollout && s->stage != OVER && (turn_limit < 0 || s->turn <= turn_limit)) {
        int n = compute_legal(s, legal);
        if (!n) break;
        int pick = 0;
        if (n > 1) pick = (int)(mt_random(g) * n);
        dispatch(s, legal[pick]);
        played++;
    }
    return search_score(s, set, reward);
}

/* Player 0's reward of the state s by the search's score (Search._score): a finished game's result,
 * else the learned evaluation, the heuristic's logistic or the Python callback; -1 with an exception
 * set on failure (the callback only). */
static int search_score(const State *s, const SearchSettings *set, double *reward) {
    if (s->stage == OVER) {
        *reward = final_reward(s);
        return 0;
    }
    if (set->learned) { /* mcts._learned_reward: the model's chance of the player to move, for player 0 */
        int seat = current_player(s);
        double chance = l_win_chance(s, seat, set->learned);
        *reward = seat == 0 ? chance : 1.0 - chance;
        return 0;
    }
    if (set->heuristic) { /* mcts._heuristic_reward */
        double x = g_evaluate(s, 0, set->heuristic) / set->heuristic_scale;
        x = x > 50.0 ? 50.0 : (x < -50.0 ? -50.0 : x);
        *reward = 1.0 / (1.0 + exp(-x));
        return 0;
    }
    CoreObject *o = core_new_empty();
    if (!o) return -1;
    o->s = *s;
    PyObject *v = PyObject_CallOneArg(set->score, (PyObject *)o);
    Py_DECREF(o);
    if (!v) return -1;
    double x = PyFloat_AsDouble(v);
    Py_DECREF(v);
    if (x == -1.0 && PyErr_Occurred()) return -1;
    *reward = x;
    return 0;
}

/* One iteration of Search._iterate from the state d (consumed).  0, or on failure: -1 with an
 * exception set (a Python score only), SEARCH_NOMEM, SEARCH_STUCK (no exception set: without a
 * Python score this runs without the GIL, and the caller raises once it holds it again). */
#define SEARCH_NOMEM -2
#define SEARCH_STUCK -3
static int search_iterate(Tree *t, State *d, MTState *g, const SearchSettings *set) {
    int legal[MAX_LEGAL], untried[MAX_LEGAL];
    const double c = set->c;
    int32_t node = 0;
    t->path_len = 0;
    if (tree_push(t, 0)) goto nomem;
    while (d->stage != OVER) {
        int n = compute_legal(d, legal);
        int n_untried = 0;
        int32_t best = -1;
        int best_action = -1;
        double best_score = -1.0;
        int32_t cur = t->nodes[node].child;
        int prev_action = -1;
        for (int i = 0; i < n; i++) {
            int a = legal[i];
            if (a < prev_action) cur = t->nodes[node].child; /* never: legal actions are sorted */
            prev_action = a;
            while (cur >= 0 && t->nodes[cur].action < a) cur = t->nodes[cur].sibling;
            if (cur < 0 || t->nodes[cur].action != a) {
                untried[n_untried++] = a;
                continue;
            }
            Node *ch = &t->nodes[cur];
            ch->avail += 1;
            if (!n_untried) {
                double score = ch->wins / (double)ch->visits +
                               c * sqrt(log((double)ch->avail) / (double)ch->visits);
                if (score > best_score) {
                    best_score = score;
                    best = cur;
                    best_action = a;
                }
            }
        }
        int player = current_player(d);
        if (n_untried) {
            int a = n_untried > 1 ? untried[mt_below(g, n_untried)] : untried[0];
            int32_t child = tree_add_child(t, node, player, a);
            if (child < 0 || tree_push(t, child)) goto nomem;
            dispatch(d, a);
            break;
        }
        if (best < 0) return SEARCH_STUCK;
        dispatch(d, best_action);
        node = best;
        if (tree_push(t, node)) goto nomem;
    }
    double reward;
    if (d->stage != OVER) {
        double leaf = 0.0;
        if (set->mix > 0.0 && search_score(d, set, &leaf)) return -1;
        if (search_rollout(d, g, set, &reward)) return -1;
        if (set->mix > 0.0) reward = (1.0 - set->mix) * reward + set->mix * leaf;
    } else {
        reward = final_reward(d);
    }
    for (int32_t i = 0; i < t->path_len; i++) {
        Node *p = &t->nodes[t->path[i]];
        p->visits += 1;
        p->wins += p->player == 0 ? reward : 1.0 - reward;
    }
    return 0;
nomem:
    return SEARCH_NOMEM;
}

/* Raise the exception for a failure code of search_iterate or determinize_state (GIL held). */
static void search_raise(int code) {
    if (code == SEARCH_NOMEM)
        PyErr_NoMemory();
    else if (code == SEARCH_STUCK)
        PyErr_SetString(PyExc_RuntimeError, "search: a game that is not over has no legal action");
    else if (code == -2)
        PyErr_SetString(PyExc_ValueError, "Sample larger than population or is negative");
}

/* The next up to 8 iterations (a batch: Search.run checks its deadline every 8) from base; adds
 * them to *count.  0, or a failure code as search_iterate's (-2 from determinize_state: the
 * population error). */
static int search_batch(Tree *t, const State *base, MTState *g, Bits *bits, const SearchSettings *set,
                        int player, int perfect, int hidden_ids, long long limit, long long *count) {
    do {
        State d = *base;
        int failed = perfect ? 0 : determinize_state(&d, player, hidden_ids, bits);
        if (!failed) failed = search_iterate(t, &d, g, set);
        if (failed) return failed;
        *count += 1;
    } while (*count < limit && (*count & 7) != 0);
    return 0;
}

/* core_search's checks of its arguments and its score: a Python callable, (weights, scale) for the
 * heuristic (into *heuristic) or a packed learned model (into *learned).  0, or -1 with an exception. */
static int search_settings(const State *s, int player, SearchSettings *set, Learned *learned,
                           GreedyWeights *heuristic) {
    PyObject *weights;
    if (!(set->mix >= 0.0 && set->mix <= 1.0)) {
        PyErr_SetString(PyExc_ValueError, "search: mix is between 0 and 1");
        return -1;
    }
    if (player != 0 && player != 1) {
        PyErr_SetString(PyExc_ValueError, "search: player is 0 or 1");
        return -1;
    }
    if (current_player(s) != player) {
        PyErr_SetString(PyExc_ValueError, "search: the player is not the one to move");
        return -1;
    }
    if (!(set->c >= 0.0)) {
        PyErr_SetString(PyExc_ValueError, "search: the exploration constant must be >= 0");
        return -1;
    }
    set->learned = NULL;
    set->heuristic = NULL;
    if (PyTuple_Check(set->score) && PyTuple_GET_SIZE(set->score) == 2) {
        if (!PyArg_ParseTuple(set->score, "Od", &weights, &set->heuristic_scale) || g_weights(weights, heuristic))
            return -1;
        if (!(set->heuristic_scale > 0.0)) {
            PyErr_SetString(PyExc_ValueError, "search: the heuristic's scale must be > 0");
            return -1;
        }
        set->heuristic = heuristic;
        set->score = NULL;
    } else if (PyTuple_Check(set->score)) {
        if (l_load(set->score, learned)) return -1;
        set->learned = learned;
        set->score = NULL;
    } else if (!PyCallable_Check(set->score)) {
        PyErr_SetString(PyExc_TypeError, "search: score must be callable, (weights, scale) or a packed learned model");
        return -1;
    }
    return 0;
}

/* What a search runs over: its tree, the state it starts from, its RNG and its settings. */
typedef struct {
    Tree *t;
    const State *base;
    MTState *g;
    Bits *bits;
    const SearchSettings *set;
    int player, perfect, hidden_ids;
} SearchRun;

/* core_search's batches until the iteration cap (limit) or, with a clock (else NULL), until clock()
 * reads deadline_at or later; the iterations done into *count.  0, or -1 with an exception set. */
static int search_run(const SearchRun *r, long long limit, PyObject *clock, double deadline_at, long long *count) {
    while (*count < limit) {
        int failed;
        if (!r->set->score) {
            Py_BEGIN_ALLOW_THREADS;
            failed = search_batch(r->t, r->base, r->g, r->bits, r->set, r->player, r->perfect, r->hidden_ids,
                                  limit, count);
            Py_END_ALLOW_THREADS;
        } else {
            failed = search_batch(r->t, r->base, r->g, r->bits, r->set, r->player, r->perfect, r->hidden_ids,
                                  limit, count);
            if (!failed) {
                /* Let other threads run (a web server's event loop waits on a hint otherwise), as
                 * the Python loop would every switch interval. */
                Py_BEGIN_ALLOW_THREADS;
                Py_END_ALLOW_THREADS;
            }
        }
        if (failed) {
            search_raise(failed);
            return -1;
        }
        if ((*count & 7) != 0) break; /* the iteration cap, inside a batch */
        if (PyErr_CheckSignals()) return -1;
        if (clock) {
            PyObject *now = PyObject_CallNoArgs(clock);
            if (!now) return -1;
            double x = PyFloat_AsDouble(now);
            Py_DECREF(now);
            if (x == -1.0 && PyErr_Occurred()) return -1;
            if (x >= deadline_at) break;
        }
    }
    return 0;
}

/* core_search's answer: (iterations done, mt_state after, ((action, visits, wins), ...) of the root's
 * children); NULL with an exception set. */
static PyObject *search_result(const Tree *t, MTState *g, long long count) {
    int n_children = 0;
    for (int32_t ch = t->nodes[0].child; ch >= 0; ch = t->nodes[ch].sibling) n_children++;
    PyObject *stats = PyTuple_New(n_children);
    if (!stats) return NULL;
    int i = 0;
    for (int32_t ch = t->nodes[0].child; ch >= 0; ch = t->nodes[ch].sibling, i++) {
        PyObject *row = Py_BuildValue("(iLd)", t->nodes[ch].action, (long long)t->nodes[ch].visits, t->nodes[ch].wins);
        if (!row) {
            Py_DECREF(stats);
            return NULL;
        }
        PyTuple_SET_ITEM(stats, i, row);
    }
    PyObject *state_after = mt_export(g);
    if (!state_after) {
        Py_DECREF(stats);
        return NULL;
    }
    return Py_BuildValue("(LNN)", count, state_after, stats);
}

/* search(player, mt_state, iterations, deadline, clock, c, perfect_information, hidden_identities,
 *        cutoff_turns, max_rollout_actions, score, mix=0.0) -> (iterations done, mt_state after,
 *        ((action, visits, wins), ...) of the root's children)
 *
 * Search.run for random rollouts from the play phase: each iteration starts from a determinization
 * for player (or, perfect_information, from a copy of this state); iterations < 0: no cap; deadline
 * (a clock() reading) is compared with clock() every 8 iterations, as Search.run does.  score scores
 * an unfinished cut-off rollout: a Python callable (score(Core) -> player 0's reward), or computed
 * here: (greedy weights, scale) for the heuristic's logistic, or a packed learned model (l_load).
 * Scored here, the iterations run without the GIL, 8 at a time, so other threads (a web server's
 * event loop) run meanwhile; with a Python score the GIL is let go between batches only.  mix > 0
 * also scores each leaf (the state the tree walk ends in) and backs up (1 - mix) * the rollout's
 * reward + mix * the leaf's. */
static PyObject *core_search(CoreObject *self, PyObject *args) {
    int player, perfect, hidden_ids;
    PyObject *mt_state, *deadline, *clock;
    long long iterations;
    SearchSettings set;
    Learned learned;
    GreedyWeights heuristic;
    set.mix = 0.0;
    if (!PyArg_ParseTuple(args, "iOLOOdppLLO|d", &player, &mt_state, &iterations, &deadline, &clock, &set.c,
                          &perfect, &hidden_ids, &set.turns_after, &set.max_rollout, &set.score, &set.mix))
        return NULL;
    if (search_settings(&self->s, player, &set, &learned, &heuristic)) return NULL;
    if (deadline != Py_None && !PyCallable_Check(clock)) {
        PyErr_SetString(PyExc_TypeError, "search: clock must be callable with a deadline");
        return NULL;
    }
    double deadline_at = 0.0;
    if (deadline != Py_None) {
        deadline_at = PyFloat_AsDouble(deadline);
        if (deadline_at == -1.0 && PyErr_Occurred()) return NULL;
    }
    MTState g;
    if (mt_load(&g, mt_state)) return NULL;
    Bits bits = {NULL, &g};
    Tree t = {NULL, 0, 0, NULL, 0, 0};
    PyObject *result = NULL;
    const State base = self->s; /* the search reads its own copy: without the GIL, self may change */
    if (tree_node(&t, 1 - player, -1) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    long long limit = iterations < 0 ? (1LL << 62) : iterations;
    long long count = 0;
    SearchRun run = {&t, &base, &g, &bits, &set, player, perfect, hidden_ids};
    if (search_run(&run, limit, deadline != Py_None ? clock : NULL, deadline_at, &count)) goto done;
    result = search_result(&t, &g, count);
done:
    PyMem_RawFree(t.nodes);
    PyMem_RawFree(t.path);
    return result;
}

/* Core.__new__ without __init__: an inert finished game, never uninitialised memory. */
static PyObject *core_tp_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    (void)args;
    (void)kwds;
    CoreObject *o = (CoreObject *)type->tp_alloc(type, 0);
    if (!o) return NULL;
    o->s.stage = OVER;
    o->s.winner = NONE;
    o->s.pending_player = o->s.cast_p = o->s.chain_p = NONE;
    o->s.max_turns = -1;
    return (PyObject *)o;
}

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clashofdecks._native.Core",
    .tp_basicsize = sizeof(CoreObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The play phase of a game as one flat struct (clashofdecks.native wraps it).",
    .tp_new = core_tp_new,
    .tp_init = (initproc)core_init,
    .tp_methods = core_methods,
    .tp_getset = core_getset,
};

/* ------------------------------------------------------------------ module functions */

static int table_from(PyObject *seq, int n, int hi, uint8_t *dst, const char *what) {
    if (!PySequence_Check(seq) || PySequence_Size(seq) < n) {
        PyErr_Format(PyExc_ValueError, "set_cards: %s needs %d entries", what, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        long v;
        if (get_long(seq, i, 0, hi, what, &v)) return -1;
        dst[i] = (uint8_t)v;
    }
    return 0;
}

static PyObject *mod_set_cards(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *cost, *attack, *health, *is_inc, *abil, *aura;
    if (!PyArg_ParseTuple(args, "OOOOOO", &cost, &attack, &health, &is_inc, &abil, &aura)) return NULL;
    if (PySequence_Size(cost) != N_CARDS) {
        PyErr_Format(PyExc_ValueError, "the compiled core is built for %d cards", N_CARDS);
        return NULL;
    }
    if (table_from(cost, N_CARDS, 255, COST, "COST") || table_from(attack, N_CARDS, 255, ATTACK, "ATTACK") ||
        table_from(health, N_CARDS, 255, HEALTH, "HEALTH") ||
        table_from(is_inc, N_CARDS, 1, IS_INC, "IS_INCANTATION") ||
        table_from(abil, N_CARDS, 127, ABIL, "ABILITIES") || table_from(aura, N_CARDS + 2, 127, AURA, "AURA"))
        return NULL;
    N_INC = 0;
    for (int c = 0; c < N_CARDS; c++)
        if (IS_INC[c]) {
            INC_SLOT[c] = (uint8_t)N_INC;
            INCANTATIONS[N_INC++] = (uint8_t)c;
        }
    ORDER_BASE = CAST_BASE + N_INC * 4 * MAX_POSITION;
    cards_ready = 1;
    return PyLong_FromLong(ORDER_BASE);
}

static PyObject *mod_blake2b_512(PyObject *m, PyObject *arg) {
    (void)m;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    uint8_t out[64];
    blake2b_512((const uint8_t *)view.buf, (size_t)view.len, out);
    PyBuffer_Release(&view);
    return PyBytes_FromStringAndSize((const char *)out, 64);
}

static PyObject *mod_random_duel(PyObject *m, PyObject *arg) {
    (void)m;
    if (!cards_ready) return NotReady();
    unsigned long long seed = PyLong_AsUnsignedLongLongMask(arg);
    if (PyErr_Occurred()) return NULL;
    CoreObject *o = core_new_empty();
    if (!o) return NULL;
    random_duel_state(&o->s, (uint64_t)seed);
    return (PyObject *)o;
}

/* random_duel_games(first_seed, games, choice_seed) -> (actions, turns, wins0, wins1, draws):
 * the benchmark's random duel games, deal and playout both inside C. */
static PyObject *mod_random_duel_games(PyObject *m, PyObject *args) {
    (void)m;
    unsigned long long first, choice;
    long long games;
    if (!PyArg_ParseTuple(args, "KLK", &first, &games, &choice)) return NULL;
    if (!cards_ready) return NotReady();
    uint64_t gen = choice;
    long long actions = 0, turns = 0, wins[3] = {0, 0, 0};
    State s;
    Py_BEGIN_ALLOW_THREADS;
    for (long long g = 0; g < games; g++) {
        random_duel_state(&s, (uint64_t)(first + (unsigned long long)g));
        actions += playout(&s, &gen, 1L << 40);
        turns += s.turn;
        if (s.winner <= 2) wins[s.winner]++;
    }
    Py_END_ALLOW_THREADS;
    return Py_BuildValue("(LLLLL)", actions, turns, wins[0], wins[1], wins[2]);
}

#define ACTION_SPACE_N 780 /* actions.ACTION_SPACE: native.py checks it (BATCH_ACTION_SPACE) */

/* ------------------------------------------------------------------ the batched environment (issue 27)
 *
 * envs/vector.py's compiled backend: N games of the learner against the `random` or the `greedy`
 * agent (a duel) or the automaton (solo), each in a slot of one bytearray (EnvSlot: the game's State,
 * its setup stage, the agent's MT19937 state, the learner's seat, what the observation row shows).
 * batch_step plays one learner decision in every game, the opponent's replies (drawn from the agent's
 * own generator as the Python agent draws), and writes the observation (the encoder of
 * envs/encoding.py: header, hands, fortresses, lanes, lane sizes, a pending return order, the solo
 * and setup slices; float32, or uint8 counts: envs/compact.py), the legal-action mask, the reward and
 * the flags into the caller's arrays.  batch_reset starts new games in slots (the setup stage of the
 * rulebook's formats, or the random deal); nothing per game runs in Python while stepping or
 * autoresetting. */

/* What a slot's observation row shows now of the hands and lanes (by player and lane), so a step
 * rewrites only the parts that changed: most steps change one hand and one lane of four. */
typedef struct {
    uint8_t hand_len[2], hands[2][HAND_CAP], fort[2];
    uint64_t known[2];
    uint8_t lane_len[4];
    Creature lanes[4][LANE_CAP];
    uint8_t pending; /* a return order is shown */
} ESeen;

/* The setup stage (R2, R7.1) in a slot: setup.py's SetupState.  Verbs are encoding.SETUP_VERBS' indices
 * (the setup_decision slice: deck, pick, build, ban), then the automatic steps (reveal, last). */
#define ORDER_COUNT 6        /* actions.ORDER_COUNT */
#define DECK_SIZE_CUSTOM 10  /* actions.DECK_SIZE_CUSTOM */
#define PRECON_DECKS 4
#define PRECON_SIZE 8
#define SETUP_STEPS 32
#define THREAT_SLICE 10      /* the threat slice of the observation (encoding.py) */
enum { V_DECK, V_PICK, V_BUILD, V_BAN, V_REVEAL, V_LAST };
enum { K_PRECON, K_DRAFT, K_CUSTOM, K_RANDOM }; /* a game's format */

typedef struct {
    uint8_t n_steps, at, verb[SETUP_STEPS], seat[SETUP_STEPS]; /* steps[at..n_steps) are left */
    uint8_t pool_len, pool_at, pool[N_CARDS];                  /* the face-down pile, top first */
    uint8_t n_revealed, revealed[4];                           /* the face-up cards */
    uint8_t n_cards[2], cards[2][N_CARDS];                     /* each seat's cards, in setup.py's order */
    uint8_t built[2], n_decks, decks[PRECON_DECKS];            /* custom builds made; precon decks taken */
} ESetup;

/* How a batch's games start (the single environment's options): the format (K_*), solo, the seat of the
 * rulebook's player A (R2.3a, R2.6a), the solo threat's start and Fort side, the threat slice's counts,
 * the preconstructed decks (cards.PRECONSTRUCTED_DECKS) and, for the greedy agent's setup decisions,
 * agents.greedy.card_value of each card and its sum over each preconstructed deck. */
typedef struct {
    int32_t kind, solo, a_seat, automaton_starts, fort_first, threat[THREAT_SLICE];
    uint8_t decks[PRECON_DECKS][PRECON_SIZE];
    double card_value[N_CARDS], deck_value[PRECON_DECKS];
} EGame;

typedef struct {
    State s;
    MTState g;
    int32_t seat;
    int32_t hidden_ids;
    int32_t row_setup; /* the observation row shows the setup stage: the next write starts afresh */
    int32_t row_seat;  /* the seat whose view the row shows (self-play: a new seat, a fresh row) */
    ESeen seen;
    ESetup st;
    EGame game;
} EnvSlot;

/* Where the encoder writes: the observation layout's slice starts (envs/encoding.py) and its size. */
enum {
    O_SEAT, O_PHASE, O_TO_MOVE, O_ACTIVE, O_TURN, O_MANA, O_HAND_ME, O_HAND_ME_FLAGS, O_HAND_OPP,
    O_HAND_OPP_FLAGS, O_OPP_HIDDEN, O_FORTRESS, O_LANES, O_LANE_SIZES, O_PENDING, O_PENDING_CARDS,
    O_AUTO_DECK, O_AUTO_DISCARD, O_AUTO_FLAGS, O_THREAT, O_SETUP_DECISION, O_SETUP_REVEALED, O_SETUP_CARDS,
    O_SETUP_COUNTS, O_SIZE, O_COUNT
};
#define E_HAND_CAP 9       /* encoding.HAND_CAP */
#define E_LANE_CAP 12      /* encoding.LANE_CAP */
#define E_FEATURES 49      /* encoding.CREATURE_FEATURES */
#define E_CARD_KINDS 34    /* encoding.CARD_KINDS */
#define E_DEFAULT_TURNS 100 /* encoding.DEFAULT_MAX_TURNS */

/* ------------------------------------------------------------------ the setup stage in the batch
 *
 * setup.py's state machine for a slot's game, with rules.Game.new's chance draws in the same order
 * (the coin toss, R2.3a; the draft pile's shuffle) and SetupRules._deal's (each seat's shuffle, R2.6,
 * R7.1), so a seeded game is the Python engine's step for step.  The custom builds (R2.5) are the
 * environment's (envs/match.py: random.Random(build seed).sample of 10 cards, A's build then B's). */

static void mt_seed(MTState *g, uint64_t seed);

static inline int deck_base(void) { return ORDER_BASE + ORDER_COUNT - 1; } /* actions.DECK_BASE */
static inline int pick_base(void) { return deck_base() + 5; }              /* actions.PICK_BASE */
static inline int ban_base(void) { return pick_base() + N_CARDS; }        /* actions.BAN_BASE */

static inline void su_step(ESetup *st, int verb, int seat) {
    st->verb[st->n_steps] = (uint8_t)verb;
    st->seat[st->n_steps++] = (uint8_t)seat;
}

/* setup.plan: the steps of the format's setup; a is the seat of the rulebook's player A. */
static void su_plan(ESetup *st, int kind, int solo, int a) {
    int b = 1 - a;
    memset(st, 0, sizeof *st);
    if (kind == K_PRECON) {
        su_step(st, V_DECK, solo ? 0 : a);
        if (!solo) su_step(st, V_DECK, b);
    } else if (kind == K_CUSTOM) {
        const int verbs[6] = {V_BUILD, V_BUILD, V_BAN, V_BAN, V_BAN, V_BAN}, seats[6] = {a, b, b, a, a, b};
        for (int j = 0; j < 6; j++) su_step(st, verbs[j], seats[j]);
    } else if (solo) {
        for (int r = 0; r < 8; r++) { /* R7.1: keep 1 of 4, the automaton gets 3 */
            su_step(st, V_REVEAL, 0);
            su_step(st, V_PICK, 0);
            su_step(st, V_LAST, 1);
        }
    } else {
        for (int r = 0; r < 4; r++) { /* R2.4: A-B-B-A, then B-A-A-B, twice */
            int first = r % 2 == 0 ? a : b, second = 1 - first;
            su_step(st, V_REVEAL, first);
            su_step(st, V_PICK, first);
            su_step(st, V_PICK, second);
            su_step(st, V_PICK, second);
            su_step(st, V_LAST, first);
        }
    }
}

/* setup.advance: the automatic steps (4 cards face up; the rest of them to a seat) up to a decision. */
static void su_advance(ESetup *st) {
    while (st->at < st->n_steps && st->verb[st->at] >= V_REVEAL) {
        if (st->verb[st->at] == V_REVEAL) {
            memcpy(st->revealed, st->pool + st->pool_at, 4);
            st->n_revealed = 4;
            st->pool_at += 4;
        } else {
            int p = st->seat[st->at];
            memcpy(st->cards[p] + st->n_cards[p], st->revealed, st->n_revealed);
            st->n_cards[p] += st->n_revealed;
            st->n_revealed = 0;
        }
        st->at++;
    }
}

/* setup.legal_actions, sorted (a build is never a seat's decision here: the environment builds). */
static int su_legal(const ESetup *st, int *out) {
    int verb = st->verb[st->at], seat = st->seat[st->at], n = 0;
    if (verb == V_DECK) {
        for (int d = 1; d <= PRECON_DECKS; d++) {
            int taken = 0;
            for (int j = 0; j < st->n_decks; j++) taken |= st->decks[j] == d;
            if (!taken) out[n++] = deck_base() + d;
        }
    } else if (verb == V_PICK || verb == V_BAN) {
        const uint8_t *cards = verb == V_PICK ? st->revealed : st->cards[1 - seat];
        int count = verb == V_PICK ? st->n_revealed : st->n_cards[1 - seat];
        uint64_t set = 0;
        for (int j = 0; j < count; j++) set |= 1ULL << cards[j];
        int base = verb == V_PICK ? pick_base() : ban_base();
        for (int c = 0; c < N_CARDS; c++)
            if (set >> c & 1) out[n++] = base + c;
    }
    return n;
}

static void su_remove(uint8_t *cards, uint8_t *n, int c) {
    for (int j = 0; j < *n; j++)
        if (cards[j] == c) {
            memmove(cards + j, cards + j + 1, (size_t)(*n - j - 1));
            (*n)--;
            return;
        }
}

/* setup.decide for a legal deck choice, pick or ban. */
static void su_decide(ESetup *st, const EGame *game, int action) {
    int verb = st->verb[st->at], seat = st->seat[st->at];
    if (verb == V_DECK) {
        int d = action - deck_base();
        memcpy(st->cards[seat], game->decks[d - 1], PRECON_SIZE);
        st->n_cards[seat] = PRECON_SIZE;
        st->decks[st->n_decks++] = (uint8_t)d;
    } else if (verb == V_PICK) {
        int c = action - pick_base();
        st->cards[seat][st->n_cards[seat]++] = (uint8_t)c;
        su_remove(st->revealed, &st->n_revealed, c);
    } else {
        su_remove(st->cards[1 - seat], &st->n_cards[1 - seat], action - ban_base());
    }
    st->at++;
}

/* match.Match._random_build for both builds, A's then B's: sorted, as build_unrank gives them. */
static void su_builds(ESetup *st, uint64_t build_seed) {
    MTState g;
    Bits bits = {NULL, &g};
    uint8_t all[N_CARDS];
    for (int c = 0; c < N_CARDS; c++) all[c] = (uint8_t)c;
    mt_seed(&g, build_seed);
    for (int k = 0; k < 2; k++) {
        int seat = st->seat[st->at];
        rb_sample(&bits, all, N_CARDS, DECK_SIZE_CUSTOM, st->cards[seat]);
        sort_bytes(st->cards[seat], DECK_SIZE_CUSTOM);
        st->n_cards[seat] = DECK_SIZE_CUSTOM;
        st->built[seat] = 1;
        st->at++;
    }
}

/* SetupRules._deal on setup.final_cards: each seat's cards shuffled (seat 0 first), the Bastion
 * leftmost; the automaton's deck with its fortress card at the bottom (R7.1); turn 1 begins. */
static void su_deal(EnvSlot *e) {
    State *s = &e->s;
    ESetup *st = &e->st;
    const EGame *game = &e->game;
    if (game->solo && game->kind == K_PRECON) { /* the automaton gets every other card, in card order */
        uint64_t mine = 0;
        for (int j = 0; j < st->n_cards[0]; j++) mine |= 1ULL << st->cards[0][j];
        st->n_cards[1] = 0;
        for (int c = 0; c < N_CARDS; c++)
            if (!(mine >> c & 1)) st->cards[1][st->n_cards[1]++] = (uint8_t)c;
    }
    for (int p = 0; p < 2; p++) {
        int n = st->n_cards[p];
        shuffle(s, st->cards[p], n);
        if (game->solo && p == 1) {
            memcpy(s->deck, st->cards[1], (size_t)n);
            s->deck[n] = game->fort_first ? FORT : BASTION;
            s->deck_len = (uint8_t)(n + 1);
            s->fort[1] = (uint8_t)game->fort_first;
        } else {
            s->hands[p][0] = BASTION;
            memcpy(s->hands[p] + 1, st->cards[p], (size_t)n);
            s->hand_len[p] = (uint8_t)(n + 1);
        }
    }
    s->turn = 1;
    if (game->solo && game->automaton_starts) {
        s->active = 1; /* R7.1a: the automaton uses its own mana; the player's first turn is normal */
        start_turn(s);
        return;
    }
    s->active = 0;
    s->stage = SUMMON;
    s->mana = 6; /* R2.6: the starting player's very first turn */
}

/* A game at the start of its setup under conf (rules.Game.new): the coin toss (a duel: the learner's
 * seat), the draft pile shuffled, the environment's builds, the automatic steps. */
static void su_new_game(EnvSlot *e, const State *conf, uint64_t game_seed, uint64_t build_seed) {
    State *s = &e->s;
    ESetup *st = &e->st;
    const EGame *game = &e->game;
    memcpy(s, conf, sizeof *s); /* the configuration; the game's fields are zero */
    s->stage = SETUP;
    s->turn = 1;
    s->winner = NONE;
    s->termination = T_FORT_FALLEN;
    s->over_phase = COMBAT;
    s->pending_player = s->cast_p = s->chain_p = NONE;
    s->rng_seed = game_seed;
    e->seat = 0;
    if (!game->solo) {
        uint8_t block[64];
        next_block(s, block); /* Game._below(2): the first 64-bit word, mod 2 */
        int toss = block[0] & 1;
        e->seat = game->a_seat == 0 ? toss : 1 - toss; /* the seat of participant 0 (formats.seat_of) */
    }
    su_plan(st, game->kind, game->solo, game->a_seat);
    if (game->kind == K_DRAFT) {
        for (int c = 0; c < N_CARDS; c++) st->pool[c] = (uint8_t)c;
        st->pool_len = N_CARDS;
        shuffle(s, st->pool, N_CARDS);
    }
    if (game->kind == K_CUSTOM) su_builds(st, build_seed);
    su_advance(st);
}

/* The seat to decide (the setup's, or the game's: -1 when it is over). */
static inline int e_mover(const EnvSlot *e) {
    return e->s.stage == SETUP ? e->st.seat[e->st.at] : current_player(&e->s);
}

static inline int e_legal(const EnvSlot *e, int *legal) {
    return e->s.stage == SETUP ? su_legal(&e->st, legal) : compute_legal(&e->s, legal);
}

/* A legal action of the seat to decide: a setup decision (the deal when the setup is complete), or
 * the game's. */
static void e_apply(EnvSlot *e, int action) {
    if (e->s.stage != SETUP) {
        dispatch(&e->s, action);
        return;
    }
    su_decide(&e->st, &e->game, action);
    su_advance(&e->st);
    if (e->st.at == e->st.n_steps) su_deal(e);
}

/* GreedyAgent._setup_action: the legal action of the highest static value, the smallest on a tie. */
static int e_greedy_setup(const EnvSlot *e, const int *legal, int n) {
    int best = -1;
    double best_value = 0.0;
    for (int j = 0; j < n; j++) {
        int a = legal[j];
        double v = 0.0;
        if (a >= pick_base() && a < ban_base() + N_CARDS)
            v = e->game.card_value[(a - pick_base()) % N_CARDS];
        else if (a > deck_base() && a <= deck_base() + PRECON_DECKS)
            v = e->game.deck_value[a - deck_base() - 1];
        if (best < 0 || v > best_value) {
            best = a;
            best_value = v;
        }
    }
    return best;
}

/* What a batch call needs besides its arrays (batch_reset's and batch_step's `spec`): the layout, the
 * observation's dtype (float32, or uint8 counts: envs/compact.py) and the opponent (the random agent,
 * or the greedy agent with its weights); or self-play (envs/selfplay.py): no opponent, the caller
 * decides for both seats, and the slot's seat is always the seat to decide. */
typedef struct {
    long o[O_COUNT];
    int u8;
    int greedy;
    int self_play;
    GreedyWeights w;
} EnvSpec;

/* One observation row: exactly one of f (float32) and u (uint8 counts) is set. */
typedef struct {
    float *f;
    uint8_t *u;
} ERow;

/* k * float32(1 / scale) in float32, as encoding._scaled (the multiplication rounded to float32). */
static float e_scaled(int k, double scale) { return (float)k * (float)(1.0 / scale); }

/* Feature i is the count k (a one-hot: 1) of the given scale: k / scale in float32, or k itself (at
 * most 255, as the float encoder caps its counts) in uint8. */
static inline void e_set(ERow r, long i, int k, double scale) {
    if (k > 255) k = 255;
    if (r.u)
        r.u[i] = (uint8_t)k;
    else
        r.f[i] = e_scaled(k, scale);
}

static inline void e_one(ERow r, long i) { e_set(r, i, 1, 1.0); }

static void e_hand(ERow out, const long *o, const State *s, int k, int p, int hidden_ids) {
    int n = s->hand_len[p];
    const uint8_t *hand = s->hands[p];
    int fi = 0;
    int want = s->fort[p] ? FORT : BASTION;
    while (fi < n && hand[fi] != want) fi++;
    long f = o[O_FORTRESS] + k * 3;
    e_set(out, f, s->fort[p] ? 1 : 0, 1.0);
    e_set(out, f + 1, n - 1 - fi, E_HAND_CAP);
    e_set(out, f + 2, n, E_HAND_CAP);
    uint64_t known = s->known[p];
    for (int i = 0; i < n && i < E_HAND_CAP; i++) {
        int c = hand[i];
        int public_card = c >= N_CARDS || ((known >> c) & 1);
        if (k == 0) {
            e_one(out, o[O_HAND_ME] + i * E_CARD_KINDS + c);
            e_one(out, o[O_HAND_ME_FLAGS] + i * 3);
            if (public_card) e_one(out, o[O_HAND_ME_FLAGS] + i * 3 + 2);
        } else {
            if (!public_card) {
                e_one(out, o[O_HAND_OPP] + i * (E_CARD_KINDS + 1) + E_CARD_KINDS);
                if (!hidden_ids) e_one(out, o[O_OPP_HIDDEN] + c);
            } else {
                e_one(out, o[O_HAND_OPP] + i * (E_CARD_KINDS + 1) + c);
            }
            e_one(out, o[O_HAND_OPP_FLAGS] + i * 2);
        }
    }
    /* the playable window (R3.2): the 4 leftmost places besides the fortress card */
    int taken = 0;
    for (int i = 0; i < 5 && i < n && taken < 4; i++) {
        if (i == fi) continue;
        e_one(out, k == 0 ? o[O_HAND_ME_FLAGS] + i * 3 + 1 : o[O_HAND_OPP_FLAGS] + i * 2 + 1);
        taken++;
    }
}

static void e_lane(ERow out, const long *o, const State *s, int slot, int k, int extra) {
    int n = s->lane_len[k];
    if (!n) return;
    e_set(out, o[O_LANE_SIZES] + slot, n, E_LANE_CAP);
    const Creature *L = s->lanes[k];
    for (int i = 0; i < n && i < E_LANE_CAP; i++) {
        const Creature *cr = &L[i];
        int c = cr->card, d = cr->damage, sp = cr->sprint;
        long f = o[O_LANES] + (slot * E_LANE_CAP + i) * E_FEATURES;
        e_one(out, f);
        e_one(out, f + 1 + c);
        long st = f + 1 + N_CARDS;
        int left = HEALTH[c] - d;
        e_set(out, st, d, 10);
        e_set(out, st + 1, ATTACK[c] + sp, 10);
        e_set(out, st + 2, left > 0 ? left : 0, 10);
        e_set(out, st + 3, ATTACK[c], 10);
        e_set(out, st + 4, HEALTH[c], 10);
        long fl = st + 5;
        if (cr->flags & F_NEW) e_one(out, fl);
        if (cr->flags & F_PROT) e_one(out, fl + 1);
        if (cr->flags & F_ACT) e_one(out, fl + 2);
        if (sp) e_set(out, fl + 3, sp, 10);
        int bits = g_bits(L, n, i, extra);
        for (int j = 0; j < 7; j++)
            if (bits & (1 << j)) e_one(out, fl + 4 + j);
    }
}

/* The turn feature: turn / cap (in double, then float32, as encoding._write_header); in uint8 the
 * turn itself, capped at the cap and at 255. */
static void e_turn(ERow out, const long *o, const State *s) {
    long long cap = s->max_turns > 0 ? s->max_turns : E_DEFAULT_TURNS;
    long long turn = s->turn < cap ? s->turn : cap;
    if (out.u)
        out.u[o[O_TURN]] = (uint8_t)(turn < 255 ? turn : 255);
    else
        out.f[o[O_TURN]] = (float)((double)turn / (double)cap);
    if (s->turn >= cap) e_one(out, o[O_TURN] + 1);
}

/* The header slices (seat to mana) of the row, zeroed before; mover: the seat to decide. */
static void e_header(ERow out, const long *o, const State *s, int seat, int mover) {
    e_one(out, o[O_SEAT] + seat);
    e_one(out, o[O_PHASE] + s->stage);
    if (s->stage == OVER)
        e_one(out, o[O_TO_MOVE] + 2);
    else
        e_one(out, o[O_TO_MOVE] + (mover != 0 && mover != 1 ? 2 : (mover == seat ? 0 : 1)));
    e_one(out, o[O_ACTIVE] + (s->active == seat ? 0 : 1));
    e_turn(out, o, s);
    e_set(out, o[O_MANA], s->mana, 10);
}

/* A pending return order (R3.9), zeroed before. */
static void e_pending(ERow out, const long *o, const State *s, int seat) {
    if (s->pending_player == NONE) return;
    e_one(out, o[O_PENDING] + (s->pending_player == seat ? 0 : 1));
    for (int i = 0; i < s->pending_n && i < 3; i++) e_one(out, o[O_PENDING_CARDS] + i * N_CARDS + s->pending[i]);
}

/* Zero `count` features of row r from feature `at`. */
static inline void e_zero(ERow r, long at, long count) {
    if (r.u)
        memset(r.u + at, 0, (size_t)count);
    else
        memset(r.f + at, 0, sizeof(float) * (size_t)count);
}

/* Row i of the observation buffer. */
static inline ERow e_row(void *obs, const EnvSpec *sp, Py_ssize_t i) {
    ERow r = {NULL, NULL};
    if (sp->u8)
        r.u = (uint8_t *)obs + i * sp->o[O_SIZE];
    else
        r.f = (float *)obs + i * sp->o[O_SIZE];
    return r;
}


/* The solo slices (encoding._fill_solo: the automaton deck as a set, its discard pile, its flags, the
 * threat options) and the automaton's fortress feature, rewritten at every step (they are few). */
static void e_solo(ERow r, const long *o, const EnvSlot *e) {
    const State *s = &e->s;
    e_zero(r, o[O_AUTO_DECK], o[O_THREAT] + THREAT_SLICE - o[O_AUTO_DECK]);
    e_zero(r, o[O_FORTRESS] + 3, 1);
    if (s->fort[1]) e_one(r, o[O_FORTRESS] + 3);
    for (int i = 0; i < s->deck_len - 1; i++) e_one(r, o[O_AUTO_DECK] + s->deck[i]);
    for (int i = 0; i < s->discard_len; i++) e_one(r, o[O_AUTO_DISCARD] + s->discard[i]);
    e_one(r, o[O_AUTO_FLAGS]);
    if (s->last_turn) e_one(r, o[O_AUTO_FLAGS] + 1);
    e_set(r, o[O_AUTO_FLAGS] + 2, s->deck_len > 1 ? s->deck_len - 1 : 0, 24);
    for (int j = 0; j < THREAT_SLICE; j++)
        if (e->game.threat[j]) e_set(r, o[O_THREAT] + j, e->game.threat[j], j == 1 ? 10 : 1);
}

/* The setup slices (encoding._fill_setup) of a row zeroed before: the next decision, the face-up
 * cards, each seat's cards (a custom deck hidden until both are built, R2.5) and the counts. */
static void e_setup(ERow r, const long *o, const EnvSlot *e) {
    const ESetup *st = &e->st;
    int opp = 1 - e->seat;
    int hide = e->game.kind == K_CUSTOM && !(st->built[0] && st->built[1]);
    e_one(r, o[O_SETUP_DECISION] + st->verb[st->at]);
    for (int j = 0; j < st->n_revealed; j++) e_one(r, o[O_SETUP_REVEALED] + st->revealed[j]);
    for (int k = 0; k < 2 - hide; k++) {
        int p = k ? opp : e->seat;
        for (int j = 0; j < st->n_cards[p]; j++) e_one(r, o[O_SETUP_CARDS] + k * N_CARDS + st->cards[p][j]);
    }
    e_set(r, o[O_SETUP_COUNTS], st->pool_len - st->pool_at, N_CARDS);
    e_set(r, o[O_SETUP_COUNTS] + 1, st->n_steps - st->at, 32);
    e_set(r, o[O_SETUP_COUNTS] + 2, st->n_decks, 4);
    if (hide && st->built[opp]) e_one(r, o[O_SETUP_COUNTS] + 3);
}

/* Whether player p's hand (and fortress card) differs from what the row shows. */
static int e_hand_changed(const ESeen *seen, const State *s, int p) {
    return seen->hand_len[p] != s->hand_len[p] || seen->fort[p] != s->fort[p] || seen->known[p] != s->known[p] ||
           memcmp(seen->hands[p], s->hands[p], s->hand_len[p]);
}

/* Whether lane k differs from what the row shows. */
static int e_lane_changed(const ESeen *seen, const State *s, int k) {
    return seen->lane_len[k] != s->lane_len[k] || memcmp(seen->lanes[k], s->lanes[k], sizeof(Creature) * s->lane_len[k]);
}

/* Hand k of the row (0: the seat's, 1: the opponent's): its places, flags and fortress features. */
static void e_zero_hand(ERow r, const long *o, int k) {
    if (k == 0)
        e_zero(r, o[O_HAND_ME], o[O_HAND_OPP] - o[O_HAND_ME]);
    else
        e_zero(r, o[O_HAND_OPP], o[O_FORTRESS] - o[O_HAND_OPP]);
    e_zero(r, o[O_FORTRESS] + k * 3, 3);
}

/* Lane slot `slot` of the row showing lane k: its creature rows and its size. */
static void e_zero_lane(ERow r, const long *o, const ESeen *seen, int slot, int k) {
    int rows = seen->lane_len[k] < E_LANE_CAP ? seen->lane_len[k] : E_LANE_CAP;
    e_zero(r, o[O_LANES] + slot * E_LANE_CAP * E_FEATURES, (long)E_FEATURES * rows);
    e_zero(r, o[O_LANE_SIZES] + slot, 1);
}

/* The row (encoding.encode_observation of a duel in play), updated from what it shows (e->seen):
 * the header always, a hand, a lane or the pending order only where it changed.  fresh: the row
 * holds anything (a new game), so all of it is zeroed and written. */
static void e_observe_row(EnvSlot *e, ERow r, const long *o, int fresh) {
    const State *s = &e->s;
    ESeen *seen = &e->seen;
    int seat = e->seat, opp = 1 - seat, setup = s->stage == SETUP;
    if (setup || e->row_setup) fresh = 1; /* the setup slices come and go: written from scratch */
    if (seat != e->row_seat) fresh = 1;   /* self-play: the other seat's view (R9), from scratch */
    e->row_seat = seat;
    if (fresh) e_zero(r, 0, o[O_SIZE]);
    e_zero(r, 0, o[O_HAND_ME]);
    e_header(r, o, s, seat, e_mover(e));
    for (int k = 0; k < 2; k++) {
        int p = k ? opp : seat;
        if (!fresh && !e_hand_changed(seen, s, p)) continue;
        if (!fresh) e_zero_hand(r, o, k);
        if (s->hand_len[p]) e_hand(r, o, s, k, p, e->hidden_ids);
    }
    const int players[4] = {seat, seat, opp, opp};
    for (int slot = 0; slot < 4; slot++) {
        int p = players[slot], k = p * 2 + (slot & 1);
        if (!fresh && !e_lane_changed(seen, s, k)) continue;
        if (!fresh) e_zero_lane(r, o, seen, slot, k);
        e_lane(r, o, s, slot, k, p == 1 ? s->threat_bits : 0);
    }
    if (seen->pending && !fresh) e_zero(r, o[O_PENDING], o[O_PENDING_CARDS] + 3 * N_CARDS - o[O_PENDING]);
    e_pending(r, o, s, seat);
    if (s->solo) e_solo(r, o, e);
    if (setup) e_setup(r, o, e);
    e->row_setup = setup;
    memcpy(seen->hand_len, s->hand_len, sizeof seen->hand_len);
    memcpy(seen->hands, s->hands, sizeof seen->hands);
    memcpy(seen->fort, s->fort, sizeof seen->fort);
    memcpy(seen->known, s->known, sizeof seen->known);
    memcpy(seen->lane_len, s->lane_len, sizeof seen->lane_len);
    memcpy(seen->lanes, s->lanes, sizeof seen->lanes);
    seen->pending = s->pending_player != NONE;
}

/* One slot's observation row and mask row; the mask only when the learner decides.  The mask row
 * shows old[0..n_old) (the legal actions it was written from); fresh: it holds anything.  Clearing
 * those few entries instead of the whole row leaves most of the row's cache lines untouched. */
static void e_write(EnvSlot *e, ERow obs, uint8_t *mask, const long *o, int fresh, const int *old, int n_old) {
    e_observe_row(e, obs, o, fresh);
    if (fresh)
        memset(mask, 0, (size_t)ACTION_SPACE_N);
    else
        for (int i = 0; i < n_old; i++) mask[old[i]] = 0;
    if (e_mover(e) == e->seat) {
        int legal[MAX_LEGAL];
        int n = e_legal(e, legal);
        for (int i = 0; i < n; i++) mask[legal[i]] = 1;
    }
}

#define E_STUCK -1   /* the greedy agent found no action it could score (a bug if reached) */
#define E_SAMPLE -2  /* the greedy agent's determinization found too few unseen cards */

/* GreedyAgent.act on the core (agents/greedy.py: one legal action is played without a draw; else
 * core.greedy_action: the determinization from the agent's generator, every action scored, a tie
 * broken by randrange), drawing from the slot's MT19937 exactly as the agent's random.Random. */
static int e_greedy(EnvSlot *e, const int *legal, int n, const GreedyWeights *w, int *action) {
    if (n == 1) {
        *action = legal[0];
        return 0;
    }
    int player = current_player(&e->s), best[MAX_LEGAL];
    Bits bits = {NULL, &e->g};
    State sample = e->s;
    if (determinize_state(&sample, player, e->hidden_ids, &bits)) return E_SAMPLE;
    long illegal = -1;
    int nb = g_best(&sample, player, legal, n, 1, w, best, &illegal);
    if (!nb) return E_STUCK;
    int pick = 0;
    if (nb > 1) pick = mt_below(&e->g, nb);
    *action = best[pick];
    return 0;
}

/* The opponent's replies until the learner decides or the game ends: the random agent
 * (legal[randrange(n)], agents/random_agent.py) or the greedy agent (its setup decisions by the
 * static card values).  The automaton makes no decisions (R7.5a): in solo the learner always decides.
 * 0, or E_STUCK / E_SAMPLE. */
static int e_opponent(EnvSlot *e, const EnvSpec *sp) {
    int legal[MAX_LEGAL];
    if (sp->self_play) { /* no opponent: the seat to decide is the slot's (the row is its view) */
        if (e->s.stage != OVER) e->seat = e_mover(e);
        return 0;
    }
    while (e->s.stage != OVER && e_mover(e) != e->seat && !e->game.solo) {
        int n = e_legal(e, legal), action;
        if (!n) break;
        if (!sp->greedy) {
            action = legal[mt_below(&e->g, n)];
        } else if (e->s.stage == SETUP) {
            action = e_greedy_setup(e, legal, n);
        } else {
            int failed = e_greedy(e, legal, n, &sp->w, &action);
            if (failed) return failed;
        }
        e_apply(e, action);
    }
    return 0;
}

static void e_opponent_error(int code) {
    if (code == E_SAMPLE)
        PyErr_SetString(PyExc_ValueError, "batch: the greedy agent's sample: Sample larger than population");
    else
        PyErr_SetString(PyExc_RuntimeError, "batch: the greedy agent found no legal action to score");
}

static int e_layout(PyObject *layout, long *o) {
    PyObject *t = PySequence_Fast(layout, "batch: the layout must be a sequence of offsets");
    if (!t) return -1;
    if (PySequence_Fast_GET_SIZE(t) != O_COUNT) {
        Py_DECREF(t);
        PyErr_Format(PyExc_ValueError, "batch: the layout needs %d offsets", (int)O_COUNT);
        return -1;
    }
    for (int i = 0; i < O_COUNT; i++) {
        o[i] = PyLong_AsLong(PySequence_Fast_GET_ITEM(t, i));
        if (o[i] < 0 || o[i] > 1000000) {
            Py_DECREF(t);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "batch: a layout offset is out of range");
            return -1;
        }
    }
    Py_DECREF(t);
    return 0;
}

/* spec = (layout, uint8, greedy weights or None[, self-play]): see EnvSpec. */
static int e_spec(PyObject *spec, EnvSpec *sp) {
    PyObject *layout, *weights;
    int u8, self_play = 0;
    memset(sp, 0, sizeof *sp);
    if (!PyArg_ParseTuple(spec, "OpO|p;batch: the spec is (layout, uint8, weights or None[, self-play])", &layout,
                          &u8, &weights, &self_play))
        return -1;
    if (e_layout(layout, sp->o)) return -1;
    sp->u8 = u8;
    sp->self_play = self_play;
    if (self_play && weights != Py_None) {
        PyErr_SetString(PyExc_ValueError, "batch: self-play has no opponent (weights must be None)");
        return -1;
    }
    if (weights == Py_None) return 0;
    sp->greedy = 1;
    return g_weights(weights, &sp->w);
}

/* Buffers: each a C-contiguous buffer (writable unless read_only) of exactly `bytes` bytes. */
static int e_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t bytes, const char *what, int read_only) {
    if (PyObject_GetBuffer(obj, view, (read_only ? 0 : PyBUF_WRITABLE) | PyBUF_C_CONTIGUOUS) < 0) return -1;
    if (view->len != bytes) {
        PyErr_Format(PyExc_ValueError, "batch: %s has %zd bytes, not %zd", what, view->len, bytes);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* count buffers of objs into views, objs[k] of sizes[k] * n bytes, the first `inputs` read only; on
 * failure none is held. */
static int e_buffers(PyObject **objs, Py_buffer *views, const Py_ssize_t *sizes, const char *const *names, int count,
                     int inputs, Py_ssize_t n) {
    for (int got = 0; got < count; got++) {
        if (e_buffer(objs[got], &views[got], sizes[got] * n, names[got], got < inputs)) {
            for (int k = 0; k < got; k++) PyBuffer_Release(&views[k]);
            return -1;
        }
    }
    return 0;
}

/* The slots bytearray: whole EnvSlots; *n their number. */
static int e_slots(PyObject *obj, Py_buffer *view, Py_ssize_t *n) {
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return -1;
    *n = view->len / (Py_ssize_t)sizeof(EnvSlot);
    if (*n * (Py_ssize_t)sizeof(EnvSlot) != view->len) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "batch: the slots buffer is not whole slots");
        return -1;
    }
    return 0;
}

/* batch_slot_size() -> bytes per slot of the slots bytearray. */
static PyObject *mod_batch_slot_size(PyObject *m, PyObject *Py_UNUSED(ignored)) {
    (void)m;
    return PyLong_FromSize_t(sizeof(EnvSlot));
}

/* random.Random(seed) for 0 <= seed < 2**64: CPython's init_by_array over the seed's 32-bit words. */
static void mt_seed(MTState *g, uint64_t seed) {
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    int key_length = seed >> 32 ? 2 : 1;
    uint32_t *mt = g->mt;
    mt[0] = 19650218U;
    for (int k = 1; k < MT_N; k++) mt[k] = 1812433253U * (mt[k - 1] ^ (mt[k - 1] >> 30)) + (uint32_t)k;
    int i = 1, j = 0;
    for (int k = MT_N > key_length ? MT_N : key_length; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
        if (j >= key_length) j = 0;
    }
    for (int k = MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000U;
    g->index = MT_N;
}

/* NumPy's bit generator interface (numpy/random/bitgen.h), reached through the "BitGenerator"
 * capsule of a Generator's bit_generator: the compiled batch draws each sub-environment's seeds from
 * its own np_random exactly as Generator.integers(0, 2**63 - 1, size=3) does (Lemire's bounded
 * method, NumPy's default), with no NumPy headers or library: only this documented struct. */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} NpBitGen;

/* Generator.integers(0, 2**63 - 1): numpy's bounded_lemire_uint64 for rng = 2**63 - 2. */
static uint64_t np_seed_draw(NpBitGen *bg) {
    const uint64_t rng_excl = 0x7fffffffffffffffULL;
    unsigned __int128 m = (unsigned __int128)bg->next_uint64(bg->state) * rng_excl;
    uint64_t leftover = (uint64_t)m;
    if (leftover < rng_excl) {
        const uint64_t threshold = (UINT64_MAX - (rng_excl - 1)) % rng_excl;
        while (leftover < threshold) {
            m = (unsigned __int128)bg->next_uint64(bg->state) * rng_excl;
            leftover = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* The game's configuration (native.game_config(solo, ruleset, threat): 10 numbers), checked as Core()
 * checks it. */
static int e_config(PyObject *config, State *conf) {
    long v;
    memset(conf, 0, sizeof *conf);
    if (!PySequence_Check(config) || PySequence_Size(config) != 10) {
        PyErr_SetString(PyExc_ValueError, "batch: the configuration is a 10-tuple");
        return -1;
    }
    if (get_long(config, 0, 0, 1, "solo", &v)) return -1;
    conf->solo = (uint8_t)v;
    if (get_long(config, 1, 0, 1, "rotated", &v)) return -1;
    conf->rotated = (uint8_t)v;
    if (get_long(config, 2, 0, 1, "timing_combat", &v)) return -1;
    conf->timing_combat = (uint8_t)v;
    if (get_long(config, 3, 0, 1, "prot_any", &v)) return -1;
    conf->prot_any = (uint8_t)v;
    if (get_long(config, 4, 0, 1, "per_card", &v)) return -1;
    conf->per_card = (uint8_t)v;
    if (get_long(config, 5, 0, 1, "defence_minus_one", &v)) return -1;
    conf->defence_minus_one = (uint8_t)v;
    if (get_long(config, 6, 0, 127, "threat_bits", &v)) return -1;
    conf->threat_bits = (uint8_t)v;
    if (get_long(config, 7, 0, 1000, "base_mana", &v)) return -1;
    conf->base_mana = (int32_t)v;
    if (get_long(config, 8, 0, 1000, "extra_mana", &v)) return -1;
    conf->extra_mana = (int32_t)v;
    if (get_long(config, 9, -1, 0x7fffffffL, "max_turns", &v)) return -1;
    conf->max_turns = (int32_t)v;
    return 0;
}

/* The game's start as EGame says (see there): (kind, solo, A's seat, the automaton starts, Fort side
 * first, the threat slice's 10 counts, the 4 x 8 preconstructed decks' cards, 32 card values, 4 deck
 * values). */
static int e_game(PyObject *spec, EGame *g) {
    long v;
    memset(g, 0, sizeof *g);
    if (!PySequence_Check(spec) || PySequence_Size(spec) != 5 + THREAT_SLICE + 32 + N_CARDS + PRECON_DECKS) {
        PyErr_SetString(PyExc_ValueError, "batch: the game's start is a sequence of 83 numbers");
        return -1;
    }
    int32_t *head[5] = {&g->kind, &g->solo, &g->a_seat, &g->automaton_starts, &g->fort_first};
    const long hi[5] = {K_RANDOM, 1, 1, 1, 1};
    for (int j = 0; j < 5; j++) {
        if (get_long(spec, j, 0, hi[j], "a game start setting", &v)) return -1;
        *head[j] = (int32_t)v;
    }
    for (int j = 0; j < THREAT_SLICE; j++) {
        if (get_long(spec, 5 + j, 0, 255, "a threat count", &v)) return -1;
        g->threat[j] = (int32_t)v;
    }
    for (int j = 0; j < 32; j++) {
        if (get_long(spec, 5 + THREAT_SLICE + j, 0, N_CARDS - 1, "a preconstructed deck's card", &v)) return -1;
        g->decks[j / PRECON_SIZE][j % PRECON_SIZE] = (uint8_t)v;
    }
    for (int j = 0; j < N_CARDS + PRECON_DECKS; j++) {
        PyObject *item = PySequence_GetItem(spec, 5 + THREAT_SLICE + 32 + j);
        double x = item ? PyFloat_AsDouble(item) : -1.0;
        Py_XDECREF(item);
        if (x == -1.0 && PyErr_Occurred()) return -1;
        if (j < N_CARDS)
            g->card_value[j] = x;
        else
            g->deck_value[j - N_CARDS] = x;
    }
    return 0;
}

/* The single environment's reset in slot e: (game seed, agent seed, build seed) drawn from the
 * sub-environment's np_random (bg), the game's start under conf (the random deal, rules.Game.random_duel;
 * or a rulebook format's setup stage, rules.Game.new), the agent's random.Random(agent seed), the
 * opponent's replies and the rows written. */
static int e_deal(EnvSlot *e, NpBitGen *bg, const State *conf, const EGame *game, const EnvSpec *sp, ERow row,
                  uint8_t *mask) {
    uint64_t game_seed = np_seed_draw(bg);
    uint64_t agent_seed = np_seed_draw(bg);
    uint64_t build_seed = np_seed_draw(bg);
    State *s = &e->s;
    e->game = *game;
    e->row_setup = 0;
    e->row_seat = -1; /* the row holds anything: written afresh below */
    mt_seed(&e->g, agent_seed);
    if (game->kind != K_RANDOM) {
        su_new_game(e, conf, game_seed, build_seed);
        e->hidden_ids = 0; /* the rulebook's formats: the cards behind hidden places are public (R9.1) */
        int failed = e_opponent(e, sp);
        if (failed) return failed;
        e_write(e, row, mask, sp->o, 1, NULL, 0);
        return 0;
    }
    random_duel_state(s, game_seed);
    s->rotated = conf->rotated;
    s->timing_combat = conf->timing_combat;
    s->prot_any = conf->prot_any;
    s->per_card = conf->per_card;
    s->defence_minus_one = conf->defence_minus_one;
    s->threat_bits = conf->threat_bits;
    s->base_mana = conf->base_mana;
    s->extra_mana = conf->extra_mana;
    s->max_turns = conf->max_turns;
    e->seat = 0; /* the random deal has no coin toss: participant 0 is seat 0 */
    e->hidden_ids = 1;
    int failed = e_opponent(e, sp);
    if (failed) return failed;
    e_write(e, row, mask, sp->o, 1, NULL, 0);
    return 0;
}

/* e_deal in the slots idx[0..count); v: the obs, mask, turn and seat buffers.  -1 with an exception set. */
static int e_deal_slots(EnvSlot *all, Py_ssize_t n, const int64_t *idx, Py_ssize_t count, PyObject *capsules,
                        const State *conf, const EGame *game, const EnvSpec *sp, Py_buffer *v) {
    for (Py_ssize_t k = 0; k < count; k++) {
        int64_t i = idx[k];
        if (i < 0 || i >= n) {
            PyErr_SetString(PyExc_IndexError, "batch: no such slot");
            return -1;
        }
        NpBitGen *bg = PyCapsule_GetPointer(PyList_GET_ITEM(capsules, i), "BitGenerator");
        if (!bg) return -1;
        int failed =
            e_deal(&all[i], bg, conf, game, sp, e_row(v[0].buf, sp, i), (uint8_t *)v[1].buf + i * ACTION_SPACE_N);
        if (failed) {
            e_opponent_error(failed);
            return -1;
        }
        ((int64_t *)v[2].buf)[i] = all[i].s.turn;
        ((int64_t *)v[3].buf)[i] = all[i].seat;
    }
    return 0;
}

/* batch_reset(slots, indices, capsules, config, game, spec, obs, mask, turns, seats): for each slot i of
 * `indices` (int64), the single environment's reset (e_deal) with capsules[i] (sub-env i's
 * np_random.bit_generator.capsule), `config` (native.game_config) and `game` (EGame: see e_game);
 * turns[i] the turn, seats[i] the learner's seat. */
static PyObject *mod_batch_reset(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *slots, *idx_obj, *capsules, *config, *game_obj, *spec_obj, *arrays[4];
    if (!PyArg_ParseTuple(args, "OOO!OOOOOOO", &slots, &idx_obj, &PyList_Type, &capsules, &config, &game_obj,
                          &spec_obj, &arrays[0], &arrays[1], &arrays[2], &arrays[3]))
        return NULL;
    if (!cards_ready) return NotReady();
    EnvSpec sp;
    State conf;
    EGame game;
    if (e_spec(spec_obj, &sp) || e_config(config, &conf) || e_game(game_obj, &game)) return NULL;
    if (game.solo != conf.solo || (game.kind == K_RANDOM && game.solo)) {
        PyErr_SetString(PyExc_ValueError, "batch: the game's start and its configuration disagree on solo");
        return NULL;
    }
    Py_buffer sv, iv, v[4];
    Py_ssize_t n;
    if (e_slots(slots, &sv, &n)) return NULL;
    int ok = 0;
    const Py_ssize_t sizes[4] = {(sp.u8 ? 1 : (Py_ssize_t)sizeof(float)) * sp.o[O_SIZE], ACTION_SPACE_N, 8, 8};
    static const char *const names[4] = {"obs", "mask", "turn", "seat"};
    if (PyList_GET_SIZE(capsules) != n) {
        PyErr_SetString(PyExc_ValueError, "batch: one capsule per slot");
    } else if (PyObject_GetBuffer(idx_obj, &iv, PyBUF_C_CONTIGUOUS) == 0) {
        if (iv.len % 8) {
            PyErr_SetString(PyExc_ValueError, "batch: the indices are int64");
        } else if (!e_buffers(arrays, v, sizes, names, 4, 0, n)) {
            ok = !e_deal_slots(sv.buf, n, iv.buf, iv.len / 8, capsules, &conf, &game, &sp, v);
            for (int k = 0; k < 4; k++) PyBuffer_Release(&v[k]);
        }
        PyBuffer_Release(&iv);
    }
    PyBuffer_Release(&sv);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

static PyObject *mod_mt_seeded_state(PyObject *m, PyObject *arg) {
    (void)m;
    unsigned long long seed = PyLong_AsUnsignedLongLong(arg);
    if (PyErr_Occurred()) return NULL;
    MTState g;
    mt_seed(&g, (uint64_t)seed);
    return mt_export(&g);
}

/* batch_step's arrays, one row per slot. */
typedef struct {
    const int64_t *actions;
    const uint8_t *skip;
    void *obs;
    uint8_t *mask, *term, *trunc, *illegal;
    double *rewards;
    int64_t *turn, *winner;
    int8_t *termination;
    int64_t *seats; /* self-play: the seat to decide, written every step (else NULL) */
} EArrays;

/* Before any game moves (a bad batch changes nothing): each stepped slot's action is in the action
 * space and the slot awaits the learner's decision (self-play: and the action is legal).  -1 with an
 * exception set. */
static int e_check(const EnvSlot *slots, Py_ssize_t n, const EArrays *a, int self_play) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (a->skip[i]) continue;
        int64_t x = a->actions[i];
        if (x < 0 || x >= ACTION_SPACE_N) {
            PyErr_Format(PyExc_ValueError, "action %lld is outside the action space (0-%d)", (long long)x,
                         ACTION_SPACE_N - 1);
            return -1;
        }
        if (slots[i].s.stage == OVER || e_mover(&slots[i]) != slots[i].seat) {
            PyErr_Format(PyExc_RuntimeError, "batch: slot %zd has no decision of the learner (reset it)", i);
            return -1;
        }
        /* self-play refuses an illegal action (no penalty): the mask row is the slot's legal actions now */
        if (self_play && !a->mask[i * ACTION_SPACE_N + x]) {
            PyErr_Format(PyExc_ValueError, "batch: game %zd: action %lld is not legal for seat %d", i, (long long)x,
                         (int)slots[i].seat);
            return -1;
        }
    }
    return 0;
}

/* One learner decision in slot i (an illegal one: the penalty, nothing changes), the opponent's
 * replies, and the slot's rows.  0, or E_STUCK / E_SAMPLE. */
static int e_step_slot(EnvSlot *e, Py_ssize_t i, const EArrays *a, const EnvSpec *sp, double penalty) {
    int legal[MAX_LEGAL];
    int action = (int)a->actions[i];
    int k = e_legal(e, legal), ok = 0;
    for (int j = 0; j < k && !ok; j++) ok = legal[j] == action;
    a->illegal[i] = (uint8_t)!ok;
    if (ok) {
        e_apply(e, action);
        int failed = e_opponent(e, sp);
        if (failed) return failed;
    }
    const State *s = &e->s;
    int over = s->stage == OVER;
    int capped = over && s->termination == T_TURN_CAP;
    a->term[i] = (uint8_t)(over && !capped);
    a->trunc[i] = (uint8_t)capped;
    a->rewards[i] = !ok ? penalty : (!over || s->winner > 1 ? 0.0 : (s->winner == e->seat ? 1.0 : -1.0));
    a->winner[i] = over && s->winner <= 1 ? s->winner : -1;
    a->termination[i] = (int8_t)(over ? s->termination : -1);
    a->turn[i] = s->turn;
    if (a->seats) a->seats[i] = e->seat;
    /* the mask row was written from this slot's state before the learner's action: legal[0..k) */
    e_write(e, e_row(a->obs, sp, i), a->mask + i * ACTION_SPACE_N, sp->o, 0, legal, k);
    return 0;
}

/* batch_step(slots, spec, penalty, actions, skip, obs, mask, rewards, terminated, truncated, turn,
 * illegal, winner, termination[, seats]): one learner decision in every slot not in `skip` (actions
 * int64), then the opponent's replies; writes every array row of those slots.  winner: -1 a draw (or
 * still playing), else the winning seat; termination: the core's code, -1 while playing.  Self-play
 * (the spec's flag): no replies, and `seats` (int64, required) gets each slot's seat to decide. */
static PyObject *mod_batch_step(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *slots, *spec_obj, *objs[12] = {NULL};
    double penalty;
    if (!PyArg_ParseTuple(args, "OOdOOOOOOOOOOO|O", &slots, &spec_obj, &penalty, &objs[0], &objs[1], &objs[2],
                          &objs[3], &objs[4], &objs[5], &objs[6], &objs[7], &objs[8], &objs[9], &objs[10], &objs[11]))
        return NULL;
    if (!cards_ready) return NotReady();
    EnvSpec sp;
    if (e_spec(spec_obj, &sp)) return NULL;
    if (objs[11] == Py_None) objs[11] = NULL;
    if (sp.self_play != (objs[11] != NULL)) {
        PyErr_SetString(PyExc_ValueError, "batch: the seats array is self-play's, and self-play needs it");
        return NULL;
    }
    int count = objs[11] ? 12 : 11;
    Py_buffer sv, v[12];
    Py_ssize_t n;
    if (e_slots(slots, &sv, &n)) return NULL;
    const Py_ssize_t sizes[12] = {
        8, 1, (sp.u8 ? 1 : (Py_ssize_t)sizeof(float)) * sp.o[O_SIZE], ACTION_SPACE_N, 8, 1, 1, 8, 1, 8, 1, 8};
    static const char *const names[12] = {"actions", "skip", "obs", "mask", "rewards", "terminated",
                                          "truncated", "turn", "illegal", "winner", "termination", "seats"};
    if (e_buffers(objs, v, sizes, names, count, 2, n)) {
        PyBuffer_Release(&sv);
        return NULL;
    }
    EArrays a = {v[0].buf, v[1].buf, v[2].buf, v[3].buf, v[5].buf, v[6].buf, v[8].buf,
                 v[4].buf, v[7].buf, v[9].buf, v[10].buf, count == 12 ? v[11].buf : NULL};
    EnvSlot *all = sv.buf;
    int bad = e_check(all, n, &a, sp.self_play), failed = 0;
    if (!bad) {
        Py_BEGIN_ALLOW_THREADS;
        for (Py_ssize_t i = 0; i < n && !failed; i++)
            if (!a.skip[i]) failed = e_step_slot(&all[i], i, &a, &sp, penalty);
        Py_END_ALLOW_THREADS;
        if (failed) e_opponent_error(failed);
    }
    for (int k = 0; k < count; k++) PyBuffer_Release(&v[k]);
    PyBuffer_Release(&sv);
    if (bad || failed) return NULL;
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ the network inside the search (issue 38)
 *
 * agents/neural.py's network (data/neural.bin, read by agents/neural_search.py and handed here as its
 * float32 payload): the observation of the player to move (the batch's encoder above, for a State of the
 * play phase), the trunk (two ReLU layers; the first reads only the row's non-zero inputs), the policy's
 * logits of the legal actions and the mover's win chance (the calibrated value head where the file has
 * it: the trunk, the learned evaluation's features and logit, the context; else the first value head).
 * net_search is a PUCT search over determinizations (ISMCTS): a node's children get the network's prior
 * when the node is first reached, the node's value backs up (mixed with a cut-off rollout scored by the
 * learned evaluation when value_weight < 1), and a child is chosen by
 * Q + c x prior x sqrt(availability) / (1 + visits), an unvisited child's Q being its parent's value. */

#define NET_CAPSULE "clashofdecks._native.Net"
#define NET_CONTEXTS 7 /* agents.neural.CONTEXTS */
#define NET_MAX_HIDDEN 1024
#define NET_MAX_INPUTS 100000

typedef struct {
    int in, h1, h2, na, vh; /* inputs, the trunk's hidden sizes, actions, the value head's hidden (0: none) */
    const float *w1, *b1, *w2, *b2, *bp, *wv, *bv;
    const float *vmean, *vstd, *vw1, *vb1, *vw2, *vb2, *va, *vk;
    float *wpt; /* the policy's weights transposed: a row per action */
    float *data;
} Net;

static void net_free(PyObject *capsule) {
    Net *n = PyCapsule_GetPointer(capsule, NET_CAPSULE);
    if (!n) return;
    PyMem_RawFree(n->data);
    PyMem_RawFree(n->wpt);
    PyMem_RawFree(n);
}

/* The float count of each tensor in agents.neural's order (TENSORS, then VALUE_TENSORS if vh > 0). */
static int net_counts(int in, int h1, int h2, int na, int vh, size_t *counts) {
    size_t c[16] = {(size_t)in * h1, (size_t)h1, (size_t)h1 * h2, (size_t)h2, (size_t)h2 * na, (size_t)na,
                    (size_t)h2, 1, L_FEATURES, L_FEATURES, (size_t)(h2 + L_FEATURES + 1 + NET_CONTEXTS) * vh,
                    (size_t)vh, (size_t)vh, 1, NET_CONTEXTS, NET_CONTEXTS};
    int n = vh ? 16 : 8;
    memcpy(counts, c, sizeof(size_t) * (size_t)n);
    return n;
}

/* net_new(payload, (inputs, hidden1, hidden2, actions, value_hidden)) -> the network, as a capsule. */
static PyObject *mod_net_new(PyObject *m, PyObject *args) {
    Py_buffer buf;
    int in, h1, h2, na, vh;
    if (!PyArg_ParseTuple(args, "y*(iiiii)", &buf, &in, &h1, &h2, &na, &vh)) return NULL;
    PyObject *result = NULL;
    Net *net = NULL;
    const uint16_t probe = 1;
    if (*(const uint8_t *)&probe != 1) {
        PyErr_SetString(PyExc_RuntimeError, "net_new: the weights are little-endian float32; this host is not");
        goto done;
    }
    if (in < 1 || in > NET_MAX_INPUTS || h1 < 1 || h1 > NET_MAX_HIDDEN || h2 < 1 || h2 > NET_MAX_HIDDEN ||
        na != ACTION_SPACE_N || vh < 0 || vh > NET_MAX_HIDDEN) {
        PyErr_SetString(PyExc_ValueError, "net_new: the network's sizes are out of range");
        goto done;
    }
    size_t counts[16], total = 0;
    int n_tensors = net_counts(in, h1, h2, na, vh, counts);
    for (int i = 0; i < n_tensors; i++) total += counts[i];
    if ((size_t)buf.len != total * sizeof(float)) {
        PyErr_Format(PyExc_ValueError, "net_new: the payload holds %zd bytes, not %zu", buf.len, total * sizeof(float));
        goto done;
    }
    net = PyMem_RawCalloc(1, sizeof(Net));
    if (net) net->data = PyMem_RawMalloc(total * sizeof(float));
    if (net && net->data) net->wpt = PyMem_RawMalloc((size_t)h2 * na * sizeof(float));
    if (!net || !net->data || !net->wpt) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(net->data, buf.buf, total * sizeof(float));
    const float *p[16];
    size_t at = 0;
    for (int i = 0; i < n_tensors; i++, at += counts[i - 1]) p[i] = net->data + at;
    net->in = in, net->h1 = h1, net->h2 = h2, net->na = na, net->vh = vh;
    net->w1 = p[0], net->b1 = p[1], net->w2 = p[2], net->b2 = p[3], net->bp = p[5], net->wv = p[6], net->bv = p[7];
    if (vh) {
        net->vmean = p[8], net->vstd = p[9], net->vw1 = p[10], net->vb1 = p[11];
        net->vw2 = p[12], net->vb2 = p[13], net->va = p[14], net->vk = p[15];
    }
    for (int j = 0; j < h2; j++)
        for (int a = 0; a < na; a++) net->wpt[(size_t)a * h2 + j] = p[4][(size_t)j * na + a];
    result = PyCapsule_New(net, NET_CAPSULE, net_free);
    if (result) net = NULL;
done:
    if (net) {
        PyMem_RawFree(net->data);
        PyMem_RawFree(net->wpt);
        PyMem_RawFree(net);
    }
    PyBuffer_Release(&buf);
    return result;
}

/* The layers' inner loop, out[0..n) += v * w[0..n): element by element, so vectorising it (GCC's -O2
 * does not, by its cost model) changes no bit of the result. */
#if defined(__GNUC__) && !defined(__clang__)
#define NET_VECTORISE __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#else
#define NET_VECTORISE
#endif
NET_VECTORISE static void net_axpy(float *restrict out, float v, const float *restrict w, int n) {
    for (int j = 0; j < n; j++) out[j] += v * w[j];
}

/* The trunk's last hidden layer h (h2 floats) of the observation row x. */
static void net_trunk(const Net *n, const float *x, float *h) {
    float a[NET_MAX_HIDDEN];
    memcpy(a, n->b1, sizeof(float) * (size_t)n->h1);
    for (int i = 0; i < n->in; i++)
        if (x[i] != 0.0f) net_axpy(a, x[i], n->w1 + (size_t)i * n->h1, n->h1);
    memcpy(h, n->b2, sizeof(float) * (size_t)n->h2);
    for (int j = 0; j < n->h1; j++)
        if (a[j] > 0.0f) net_axpy(h, a[j], n->w2 + (size_t)j * n->h2, n->h2);
    for (int k = 0; k < n->h2; k++)
        if (h[k] < 0.0f) h[k] = 0.0f;
}

static float net_policy_logit(const Net *n, const float *h, int action) {
    const float *w = n->wpt + (size_t)action * n->h2;
    float s = n->bp[action];
    for (int k = 0; k < n->h2; k++) s += w[k] * h[k];
    return s;
}

/* The mover's (seat's) win chance: the calibrated head (NeuralModel.value_logit) or the first one. */
static double net_chance(const Net *n, const float *h, const State *s, int seat, const Learned *learned,
                         int context) {
    if (!n->vh || !learned) {
        float v = n->bv[0];
        for (int k = 0; k < n->h2; k++) v += n->wv[k] * h[k];
        return l_logistic((double)v);
    }
    double x[L_FEATURES];
    l_features(s, seat, learned, x);
    double p = l_win_chance(s, seat, learned);
    p = p < 1e-6 ? 1e-6 : (p > 1.0 - 1e-6 ? 1.0 - 1e-6 : p);
    float z = (float)log(p / (1.0 - p));
    float u[NET_MAX_HIDDEN + L_FEATURES + 1 + NET_CONTEXTS];
    int m = 0;
    for (int k = 0; k < n->h2; k++) u[m++] = h[k];
    for (int i = 0; i < L_FEATURES; i++) u[m++] = ((float)x[i] - n->vmean[i]) / n->vstd[i];
    u[m++] = z;
    for (int c = 0; c < NET_CONTEXTS; c++) u[m++] = c == context ? 1.0f : 0.0f;
    float logit = n->vb2[0] + n->va[context] + n->vk[context] * z, a[NET_MAX_HIDDEN];
    memcpy(a, n->vb1, sizeof(float) * (size_t)n->vh);
    for (int i = 0; i < m; i++)
        if (u[i] != 0.0f) net_axpy(a, u[i], n->vw1 + (size_t)i * n->vh, n->vh);
    for (int j = 0; j < n->vh; j++)
        if (a[j] > 0.0f) logit += a[j] * n->vw2[j];
    return l_logistic((double)logit);
}

/* What the encoder needs besides the state: the layout's offsets, the threat slice (constant over a
 * game), whether hidden identities stay hidden, and the context (duel, solo level) for the value head. */
typedef struct {
    long o[O_COUNT];
    float threat[THREAT_SLICE];
    int hidden_ids, context;
} NetView;

/* encoding.encode_observation(game, seat) of a state in the play phase, into row (zeroed here). */
static void net_observe(const State *s, int seat, const NetView *v, float *row) {
    const long *o = v->o;
    ERow r = {row, NULL};
    int opp = 1 - seat;
    memset(row, 0, sizeof(float) * (size_t)o[O_SIZE]);
    e_header(r, o, s, seat, current_player(s));
    for (int k = 0; k < 2; k++) {
        int p = k ? opp : seat;
        if (s->hand_len[p]) e_hand(r, o, s, k, p, v->hidden_ids);
    }
    const int players[4] = {seat, seat, opp, opp};
    for (int slot = 0; slot < 4; slot++) {
        int p = players[slot];
        e_lane(r, o, s, slot, p * 2 + (slot & 1), p == 1 ? s->threat_bits : 0);
    }
    e_pending(r, o, s, seat);
    if (!s->solo) return;
    if (s->fort[1]) e_one(r, o[O_FORTRESS] + 3);
    for (int i = 0; i < s->deck_len - 1; i++) e_one(r, o[O_AUTO_DECK] + s->deck[i]);
    for (int i = 0; i < s->discard_len; i++) e_one(r, o[O_AUTO_DISCARD] + s->discard[i]);
    e_one(r, o[O_AUTO_FLAGS]);
    if (s->last_turn) e_one(r, o[O_AUTO_FLAGS] + 1);
    e_set(r, o[O_AUTO_FLAGS] + 2, s->deck_len > 1 ? s->deck_len - 1 : 0, 24);
    for (int j = 0; j < THREAT_SLICE; j++) row[o[O_THREAT] + j] = v->threat[j];
}

typedef struct {
    const Net *net;
    NetView view;
    SearchSettings rollout; /* the cut-off rollout and its learned evaluation */
    double c, value_weight;
    double noise, noise_alpha; /* the root prior's Dirichlet share (0: none, the play default) and its alpha */
    double fpu_cut;            /* an unvisited child's Q: its parent's value less this (first-play urgency) */
    float *row;
    long long evaluations;
} NetSearch;

/* A standard normal variate (Box-Muller, one of the pair). */
static double mt_normal(MTState *g) {
    double u = 1.0 - mt_random(g); /* (0, 1] */
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * mt_random(g));
}

/* A Gamma(alpha, 1) variate, alpha > 0 (Marsaglia and Tsang; below 1 through alpha + 1 and U^(1/alpha)). */
static double mt_gamma(MTState *g, double alpha) {
    double boost = 1.0;
    if (alpha < 1.0) {
        boost = pow(1.0 - mt_random(g), 1.0 / alpha);
        alpha += 1.0;
    }
    double d = alpha - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = mt_normal(g);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        double u = 1.0 - mt_random(g);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v)) return d * v * boost;
    }
}

/* AlphaZero's exploration noise: prior <- (1 - share) prior + share Dirichlet(alpha, ..., alpha). */
static void net_root_noise(MTState *g, float *prior, int n, double share, double alpha) {
    double eta[MAX_LEGAL], sum = 0.0;
    for (int i = 0; i < n; i++) sum += eta[i] = mt_gamma(g, alpha);
    for (int i = 0; i < n; i++)
        prior[i] = (float)((1.0 - share) * prior[i] + share * (sum > 0.0 ? eta[i] / sum : 1.0 / n));
}

/* The network at d for the player to move: the softmax of the legal actions' logits into prior (may be
 * NULL) and that player's win chance. */
static double net_at(NetSearch *ns, const State *d, const int *legal, int n, float *prior) {
    float h[NET_MAX_HIDDEN];
    int mover = current_player(d);
    net_observe(d, mover, &ns->view, ns->row);
    net_trunk(ns->net, ns->row, h);
    ns->evaluations++;
    if (prior) {
        float top = -INFINITY, sum = 0.0f;
        for (int i = 0; i < n; i++) {
            prior[i] = net_policy_logit(ns->net, h, legal[i]);
            if (prior[i] > top) top = prior[i];
        }
        for (int i = 0; i < n; i++) sum += prior[i] = expf(prior[i] - top);
        for (int i = 0; i < n; i++) prior[i] /= sum;
    }
    return net_chance(ns->net, h, d, mover, ns->rollout.learned, ns->view.context);
}

/* The children of node for legal[0..n) with their priors (node is reached for the first time). */
static int net_expand(Tree *t, int32_t node, int player, const int *legal, int n, const float *prior) {
    for (int i = 0; i < n; i++) {
        int32_t child = tree_add_child(t, node, player, legal[i]);
        if (child < 0) return SEARCH_NOMEM;
        t->nodes[child].prior = prior[i];
    }
    t->nodes[node].expanded = 1;
    return 0;
}

/* The child of node chosen by PUCT among the legal actions of this determinization (a legal action
 * without a child yet gets one with the prior 1/n); its index, or a failure code. */
static int32_t net_select(Tree *t, int32_t node, int player, const int *legal, int n, double c, double fpu_cut) {
    int32_t best = -1;
    double best_score = -INFINITY, fpu = t->nodes[node].value - fpu_cut;
    for (int i = 0; i < n; i++) {
        int32_t cur = t->nodes[node].child;
        while (cur >= 0 && t->nodes[cur].action < legal[i]) cur = t->nodes[cur].sibling;
        if (cur < 0 || t->nodes[cur].action != legal[i]) {
            cur = tree_add_child(t, node, player, legal[i]);
            if (cur < 0) return SEARCH_NOMEM;
            t->nodes[cur].prior = 1.0f / (float)n;
            t->nodes[cur].avail = 0;
        }
        Node *ch = &t->nodes[cur];
        ch->avail += 1;
        double q = ch->visits ? ch->wins / (double)ch->visits : fpu;
        double score = q + c * ch->prior * sqrt((double)ch->avail) / (double)(1 + ch->visits);
        if (score > best_score) {
            best_score = score;
            best = cur;
        }
    }
    return best;
}

/* One iteration from the determinization d (consumed): 0 or a failure code of search_iterate. */
static int net_iterate(Tree *t, State *d, MTState *g, NetSearch *ns) {
    int legal[MAX_LEGAL];
    float prior[MAX_LEGAL];
    int32_t node = 0;
    double reward = -1.0;
    t->path_len = 0;
    if (tree_push(t, 0)) return SEARCH_NOMEM;
    while (d->stage != OVER) {
        int n = compute_legal(d, legal);
        if (!n) return SEARCH_STUCK;
        int player = current_player(d);
        if (!t->nodes[node].expanded) {
            double chance = 0.5;
            prior[0] = 1.0f;
            if (n > 1) chance = net_at(ns, d, legal, n, prior);
            if (n > 1 && node == 0 && ns->noise > 0.0) net_root_noise(g, prior, n, ns->noise, ns->noise_alpha);
            if (net_expand(t, node, player, legal, n, prior)) return SEARCH_NOMEM;
            if (n > 1) { /* a leaf: its value (the mover's), as player 0's reward, maybe mixed with a rollout */
                t->nodes[node].value = chance;
                reward = player == 0 ? chance : 1.0 - chance;
                if (ns->value_weight < 1.0) {
                    double rolled;
                    if (search_rollout(d, g, &ns->rollout, &rolled)) return SEARCH_STUCK;
                    reward = ns->value_weight * reward + (1.0 - ns->value_weight) * rolled;
                }
                break;
            }
        }
        int32_t best = net_select(t, node, player, legal, n, ns->c, ns->fpu_cut);
        if (best < 0) return best == -1 ? SEARCH_STUCK : best;
        dispatch(d, t->nodes[best].action);
        node = best;
        if (tree_push(t, node)) return SEARCH_NOMEM;
    }
    if (reward < 0.0) reward = final_reward(d);
    for (int32_t i = 0; i < t->path_len; i++) {
        Node *p = &t->nodes[t->path[i]];
        p->visits += 1;
        p->wins += p->player == 0 ? reward : 1.0 - reward;
    }
    return 0;
}

static Net *net_of(PyObject *capsule) { return PyCapsule_GetPointer(capsule, NET_CAPSULE); }

/* (net, layout, threat slice, hidden identities, context, packed learned model) -> *ns; -1 with an
 * exception set. */
static int net_view(PyObject *net, PyObject *layout, PyObject *threat, int hidden_ids, int context, PyObject *packed,
                    Learned *learned, NetSearch *ns) {
    double t[THREAT_SLICE];
    memset(ns, 0, sizeof *ns);
    ns->net = net_of(net);
    if (!ns->net || e_layout(layout, ns->view.o) ||
        seq_doubles(threat, THREAT_SLICE, t, "net: the threat slice is a sequence", "net: the threat slice's size"))
        return -1;
    if (ns->view.o[O_SIZE] != ns->net->in) {
        PyErr_SetString(PyExc_ValueError, "net: the layout's size is not the network's input size");
        return -1;
    }
    if (context < 0 || context >= NET_CONTEXTS) {
        PyErr_SetString(PyExc_ValueError, "net: the context is 0 (duel) to 6 (solo level 5)");
        return -1;
    }
    for (int j = 0; j < THREAT_SLICE; j++) ns->view.threat[j] = (float)t[j];
    ns->view.hidden_ids = hidden_ids;
    ns->view.context = context;
    if (l_load(packed, learned)) return -1;
    ns->rollout.learned = learned;
    return 0;
}

/* net_evaluate(net, seat, layout, threat, hidden_ids, context, learned) -> (observation as float32
 * bytes, the 780 policy logits, seat's win chance): what the search computes at a node, for the tests. */
static PyObject *core_net_evaluate(CoreObject *self, PyObject *args) {
    PyObject *net, *layout, *threat, *packed;
    int seat, hidden_ids, context;
    Learned learned;
    NetSearch ns;
    if (!PyArg_ParseTuple(args, "OiOOpiO", &net, &seat, &layout, &threat, &hidden_ids, &context, &packed) ||
        net_view(net, layout, threat, hidden_ids, context, packed, &learned, &ns))
        return NULL;
    if (seat != 0 && seat != 1) {
        PyErr_SetString(PyExc_ValueError, "net_evaluate: seat is 0 or 1");
        return NULL;
    }
    PyObject *obs = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(float) * ns.net->in);
    PyObject *logits = PyTuple_New(ns.net->na);
    if (!obs || !logits) goto fail;
    float h[NET_MAX_HIDDEN];
    float *row = (float *)PyBytes_AS_STRING(obs);
    net_observe(&self->s, seat, &ns.view, row);
    net_trunk(ns.net, row, h);
    for (int a = 0; a < ns.net->na; a++) {
        PyObject *v = PyFloat_FromDouble((double)net_policy_logit(ns.net, h, a));
        if (!v) goto fail;
        PyTuple_SET_ITEM(logits, a, v);
    }
    double chance = net_chance(ns.net, h, &self->s, seat, &learned, context);
    return Py_BuildValue("(NNd)", obs, logits, chance);
fail:
    Py_XDECREF(obs);
    Py_XDECREF(logits);
    return NULL;
}

/* net_search(net, player, mt_state, iterations, c, hidden_ids, layout, threat, context, learned,
 *            cutoff_turns, max_rollout_actions, value_weight[, noise, noise_alpha, fpu_cut]) -> (iterations, mt_state after,
 *            ((action, visits, wins), ...) of the root's children, network evaluations)
 * The PUCT search of the section's comment from this state (the play phase) for player, iterations
 * determinizations for player's view, without the GIL; noise > 0 mixes that share of a Dirichlet(noise_alpha)
 * draw into the root's prior (self-play's exploration; play searches without it); an unvisited child's Q is
 * its parent's value less fpu_cut. */
static PyObject *core_net_search(CoreObject *self, PyObject *args) {
    PyObject *net, *mt_state, *layout, *threat, *packed;
    int player, hidden_ids, context;
    long long iterations;
    Learned learned;
    NetSearch ns;
    double c, value_weight, noise = 0.0, noise_alpha = 1.0, fpu_cut = 0.0;
    long long turns_after, max_rollout;
    if (!PyArg_ParseTuple(args, "OiOLdpOOiOLLd|ddd", &net, &player, &mt_state, &iterations, &c, &hidden_ids,
                          &layout, &threat, &context, &packed, &turns_after, &max_rollout, &value_weight, &noise,
                          &noise_alpha, &fpu_cut) ||
        net_view(net, layout, threat, hidden_ids, context, packed, &learned, &ns))
        return NULL;
    if (player != 0 && player != 1 ? 1 : current_player(&self->s) != player) {
        PyErr_SetString(PyExc_ValueError, "net_search: the player is not the one to move");
        return NULL;
    }
    if (!(c >= 0.0) || !(value_weight >= 0.0 && value_weight <= 1.0) || iterations < 1 ||
        !(noise >= 0.0 && noise <= 1.0) || !(noise_alpha > 0.0)) {
        PyErr_SetString(PyExc_ValueError,
                        "net_search: c >= 0, 0 <= value_weight <= 1, iterations >= 1, 0 <= noise <= 1, alpha > 0");
        return NULL;
    }
    ns.c = c;
    ns.noise = noise;
    ns.noise_alpha = noise_alpha;
    ns.fpu_cut = fpu_cut;
    ns.value_weight = value_weight;
    ns.rollout.turns_after = turns_after;
    ns.rollout.max_rollout = max_rollout;
    MTState g;
    if (mt_load(&g, mt_state)) return NULL;
    Bits bits = {NULL, &g};
    Tree t = {NULL, 0, 0, NULL, 0, 0};
    PyObject *result = NULL;
    const State base = self->s;
    long long count = 0;
    int failed = 0;
    ns.row = PyMem_RawMalloc(sizeof(float) * (size_t)ns.net->in);
    if (!ns.row || tree_node(&t, 1 - player, -1) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    while (count < iterations && !failed) {
        Py_BEGIN_ALLOW_THREADS;
        do {
            State d = base;
            failed = determinize_state(&d, player, hidden_ids, &bits);
            if (!failed) failed = net_iterate(&t, &d, &g, &ns);
            if (!failed) count++;
        } while (!failed && count < iterations && (count & 63) != 0);
        Py_END_ALLOW_THREADS;
        if (!failed && PyErr_CheckSignals()) goto done;
    }
    if (failed) {
        search_raise(failed);
        goto done;
    }
    PyObject *stats = search_result(&t, &g, count);
    if (stats) result = Py_BuildValue("(NL)", stats, ns.evaluations);
done:
    PyMem_RawFree(ns.row);
    PyMem_RawFree(t.nodes);
    PyMem_RawFree(t.path);
    return result;
}

static PyMethodDef module_methods[] = {
    {"set_cards", mod_set_cards, METH_VARARGS,
     "set_cards(cost, attack, health, is_incantation, abilities, aura) -> ORDER_BASE"},
    {"blake2b_512", mod_blake2b_512, METH_O, "Unkeyed BLAKE2b-512 of bytes (the game RNG's hash)."},
    {"random_duel", mod_random_duel, METH_O, "rules.Game.random_duel(seed) as a Core."},
    {"random_duel_games", mod_random_duel_games, METH_VARARGS,
     "random_duel_games(first_seed, games, choice_seed) -> (actions, turns, wins0, wins1, draws)"},
    {"net_new", mod_net_new, METH_VARARGS,
     "net_new(float32 payload, (inputs, hidden1, hidden2, actions, value_hidden)) -> the network (a capsule)"},
    {"batch_slot_size", mod_batch_slot_size, METH_NOARGS, "Bytes per slot of a batched environment."},
    {"batch_reset", mod_batch_reset, METH_VARARGS,
     "batch_reset(slots, indices, capsules, config, game, spec, obs, mask, turns, seats)"},
    {"mt_seeded_state", mod_mt_seeded_state, METH_O,
     "random.Random(seed).getstate()[1] for 0 <= seed < 2**64, seeded in C (checked by the tests)."},
    {"batch_step", mod_batch_step, METH_VARARGS,
     "batch_step(slots, spec, penalty, actions, skip, obs, mask, rewards, terminated, truncated, turn, "
     "illegal, winner, termination[, seats])"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "_native", "The compiled core of Clash of Decks (docs/native.md).", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&native_module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "STATE_SIZE", (long)sizeof(State));
    PyModule_AddIntConstant(m, "BATCH_ACTION_SPACE", ACTION_SPACE_N);
    PyModule_AddStringConstant(m, "SOURCE_HASH", SOURCE_HASH);
    /* The constants compiled in, by their Python names: clashofdecks.native (and the learned
     * evaluation, for its feature layout) compare them with the Python definitions at import, so a
     * difference is an ImportError naming it, never a silent one. */
    PyObject *layout = Py_BuildValue(
        "{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}",
        "N_CARDS", N_CARDS, "BASTION", BASTION, "FORT", FORT, "MAX_POSITION", MAX_POSITION,
        "END", END, "NEXT", NEXT, "PLAY_BASE", PLAY_BASE, "CAST_BASE", CAST_BASE,
        "SETUP", SETUP, "SUMMON", SUMMON, "COMBAT", COMBAT, "OVER", OVER, "DRAW", DRAW,
        "T_FORT_FALLEN", T_FORT_FALLEN, "T_SURVIVED", T_SURVIVED, "T_TURN_CAP", T_TURN_CAP,
        "T_RESIGNED", T_RESIGNED, "T_TIME", T_TIME,
        "SPLASH", SPLASH, "PERFORATION", PERFORATION, "RAGE", RAGE, "PROTECTION", PROTECTION,
        "INDESTRUCTIBLE", INDESTRUCTIBLE, "BERSERK", BERSERK, "SPRINT", SPRINT,
        "G_WEIGHTS", G_WEIGHTS, "L_FEATURES", L_FEATURES);
    if (!layout) {
        Py_DECREF(m);
        return NULL;
    }
    /* The learned features' layout, the batch's encoder, action space and setup stage (envs/vector.py and
       encoding.py check these). */
    PyObject *features = Py_BuildValue(
        "{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "L_STAGE2", L_STAGE2,
        "L_THREAT_FIRST", L_THREAT_FIRST, "L_THREAT_N", L_THREAT_N, "ORDER_COUNT", ORDER_COUNT,
        "DECK_SIZE_CUSTOM", DECK_SIZE_CUSTOM, "SETUP_VERB_DECK", V_DECK, "SETUP_VERB_PICK", V_PICK,
        "SETUP_VERB_BUILD", V_BUILD, "SETUP_VERB_BAN", V_BAN, "PRECON_DECKS", PRECON_DECKS, "THREAT_SLICE",
        THREAT_SLICE, "E_HAND_CAP", E_HAND_CAP, "E_LANE_CAP", E_LANE_CAP, "E_FEATURES", E_FEATURES,
        "E_CARD_KINDS", E_CARD_KINDS, "E_DEFAULT_TURNS", E_DEFAULT_TURNS, "ACTION_SPACE", ACTION_SPACE_N,
        "BATCH_SELF_PLAY", 1);
    if (!features || PyDict_Update(layout, features) < 0 || PyModule_AddObject(m, "LAYOUT", layout) < 0) {
        Py_XDECREF(features);
        Py_DECREF(layout);
        Py_DECREF(m);
        return NULL;
    }
    Py_DECREF(features);
    return m;
}
