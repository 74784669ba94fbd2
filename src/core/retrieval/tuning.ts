/**
 * Every knob of retrieval in one place, tuned on `npm run eval:retrieval -- --sets cuad-clauses`
 * (bench/eval-retrieval.ts). Change a value here and run the eval: the numbers it prints are the
 * reason each value is what it is.
 */
export interface RoutingTuning {
  /** A word names documents when it is in the names of at most this share of them (a party, not "agreement")… */
  rareShare: number;
  /** …or of at most this many, in a small case. */
  minRareDocs: number;
  /** Words this long or longer match names with one typo (MiniSearch's fuzzy ratio below). */
  fuzzyMinLength: number;
  fuzzy: number;
  /** The best document's naming weight (Σ idf of its naming words) must reach this to focus at all. */
  minWeight: number;
  /** Documents whose weight is at least this share of the best one's are focused on too. */
  keepShare: number;
  /** More documents than this named at once is not a focus: the whole case is searched. */
  maxFocus: number;
  /** Search within the focused documents without the words that named them. */
  dropNamingWords: boolean;
  /** A capitalised word of the question found in at least this share of the focused documents' passages is a party's name: left out too. */
  partyShare: number;
}

export interface RetrievalTuning {
  /** Reciprocal Rank Fusion's k: Σ 1/(k + rank). */
  rrfK: number;
  /** Candidates each component (BM25, vectors) brings to fusion, at least; more when top_k × 4 is more. */
  candidates: number;
  /** Weights of the keyword and vector lists in the fusion. */
  keywordWeight: number;
  vectorWeight: number;
  /**
   * BM25 weight of a chunk's context (title › section path) next to its text (weight 1); 0 searches
   * the text alone: a boost gained no recall on the clause set and slowed every query
   * (figures: bench/RESULTS.md, "Figures behind choices in the code"). The context still counts where it helps: it is embedded with the text.
   */
  contextBoost: number;
  /** A result that ends mid-sentence is extended over the next chunk of its document. */
  adjacency: boolean;
  /** The keyword query gains the contract words for each kind of clause the question speaks of (lexicon.ts). */
  lexicon: boolean;
  /** …and so does the text the question's vector is made from. */
  lexiconVector: boolean;
  sentences: SentenceTuning;
  routing: RoutingTuning;
}

/**
 * A hybrid search's second look: the passages after the first, up to `head`, re-ordered by the
 * best sentence's cosine with the query, plus `chunk` × the passage's own cosine and `rank` ×
 * k/(k + rank + 1) for search's order. The first passage stays first.
 */
export interface SentenceTuning {
  /** How many of the first passages take part (0: off). */
  head: number;
  rank: number;
  rankK: number;
  chunk: number;
}

export const RETRIEVAL_TUNING: RetrievalTuning = {
  rrfK: 60,
  candidates: 50,
  keywordWeight: 1,
  vectorWeight: 1,
  contextBoost: 0,
  adjacency: true,
  lexicon: true,
  lexiconVector: true,
  sentences: { head: 15, rank: 0.3, rankK: 2, chunk: 0.6 },
  routing: {
    rareShare: 0.08,
    minRareDocs: 2,
    fuzzyMinLength: 6,
    fuzzy: 0.2,
    minWeight: 1,
    keepShare: 0.6,
    maxFocus: 8,
    dropNamingWords: true,
    partyShare: 0.2,
  },
};

/** Where a passage's grade changes (relevance.ts). */
export interface RelevanceTuning {
  /** "Likely answer": among the first `answerRank` + 1 passages, labelled strong by search, its best sentence this close in meaning… */
  answerCosine: number;
  /** …and holding this share of the question's words. */
  answerCoverage: number;
  answerRank: number;
  /** Without an embedding model: the share of the question's words a first passage must hold to be the likely answer. */
  answerCoverageAlone: number;
  /** Under both floors a passage is only among the closest: a question with nothing above them is one the documents don't appear to answer. */
  floorCosine: number;
  floorCoverage: number;
  /** A lower-case word this long that no document uses means the documents don't speak of it… */
  rareWordLength: number;
  /** …in a case of at least this many passages, where no passage is the likely answer. */
  rareWordsCase: number;
}

export const RELEVANCE: RelevanceTuning = {
  answerCosine: 0.5,
  answerCoverage: 0.3,
  answerRank: 1,
  answerCoverageAlone: 0.7,
  floorCosine: 0.38,
  floorCoverage: 0.6,
  rareWordLength: 7,
  rareWordsCase: 1000,
};
