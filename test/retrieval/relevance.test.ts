import { describe, expect, it } from 'vitest';
import { clauseTerms, expandQuery, headingSpeaksOf } from '../../src/core/retrieval/lexicon';
import {
  asksForAmount,
  factTerms,
  gradePassage,
  holdsAmount,
  holdsAskedFigure,
  rareWords,
} from '../../src/core/retrieval/relevance';

describe('the clause lexicon', () => {
  it("adds the contract's words for the kind of clause a client's question speaks of", () => {
    expect(expandQuery('Can they drop us whenever they want?')).toMatch(/terminat.*convenience/);
    expect(expandQuery('Who owns what we build for them?')).toMatch(/intellectual property/);
    expect(expandQuery('Can they hand it over to another company if they get bought?')).toMatch(/assign/);
    expect(expandQuery('What did the court hold in Gildernew v. Gantner?')).toMatch(/affirm.*reverse.*remand/);
    expect(expandQuery('Must the supplier hold the customer harmless?')).not.toMatch(/affirm/);
    // How clients say a cap, a right of first refusal, a change of control and an ending.
    expect(expandQuery("What's the most they could ever owe us?")).toMatch(/liability.*exceed/);
    expect(expandQuery('If they get an outside offer, how long do we have to match it?')).toMatch(/first refusal/);
    expect(expandQuery('Can they end it if someone buys half of our shares?')).toMatch(/control/);
    expect(expandQuery('How much notice does the supplier give if it wants to stop supplying us?')).toMatch(/terminat/);
    expect(expandQuery('How much could we recover at most under the deal?')).toMatch(/liability.*exceed/);
    expect(expandQuery('What cover do we need to keep?')).toMatch(/insurance/);
    expect(expandQuery('What can we use of theirs?')).toMatch(/license/);
    // "Cover" alone is not insurance: what a license covers is not.
    expect(expandQuery('Is the license exclusive, and what does it cover?')).not.toMatch(/insurance/);
  });

  it("names the contract's own word for a client's word: a contract that uses it is not silent on the topic", () => {
    expect(clauseTerms('poaching')).toEqual(['solicit']);
    expect(clauseTerms('Are we the only one?')).toEqual(['exclusive']);
    // A word that is its clause's own word stays itself: a contract without it does not deal with it.
    expect(clauseTerms('insurance')).toEqual(['insurance']);
    expect(clauseTerms('earthquake')).toEqual([]);
  });

  it('knows a clause by its heading: the kind of clause asked about, not any word the question shares', () => {
    expect(headingSpeaksOf('Are we barred from competing?', '2.6 Competitive Products')).toBe(true);
    expect(headingSpeaksOf('Exclusivity, compared.', '3.2 Exclusivity')).toBe(true);
    expect(headingSpeaksOf('What cover do we need to keep?', '13 Insurance')).toBe(true);
    expect(headingSpeaksOf('Whose law would apply?', '14.3 Governing Law')).toBe(true);
    // A question's word in a heading of another kind ("disputes" of governing law), a heading no
    // clause kind names ("Notices"), a table of contents' line (its page number at the end).
    expect(headingSpeaksOf('If we sued, whose law would apply?', '2.8 Escalation of Certain Disputes')).toBe(false);
    expect(headingSpeaksOf('Can they drop us whenever they want?', '14.2 Notices')).toBe(false);
    expect(headingSpeaksOf('Could they hand the contract over to someone else?', '19.1 Assignment; Inurement 41')).toBe(
      false,
    );
    expect(headingSpeaksOf('Could they hand the contract over to someone else?', '19.1 Assignment; Inurement')).toBe(
      true,
    );
  });

  it('leaves a question that names no kind of clause as it is, and adds no word it already has', () => {
    expect(expandQuery('Who signed for Brightline Data Services?')).toBe(
      'Who signed for Brightline Data Services? dated effective date entered',
    );
    expect(expandQuery('What is the purchase order number on the invoice?')).toBe(
      'What is the purchase order number on the invoice?',
    );
    expect(expandQuery('When can the agreement be terminated?')).toBe(
      'When can the agreement be terminated? notice convenience',
    );
  });
});

describe('passage relevance', () => {
  const strong = { sentenceCosine: 0.62, coverage: 0.6, rank: 0, label: 'strong', lacksAskedFact: false };

  it('"Likely answer" needs a first passage that search and meaning both put on top', () => {
    expect(gradePassage(strong)).toBe('answer');
    expect(gradePassage({ ...strong, rank: 4 })).toBe('related');
    expect(gradePassage({ ...strong, label: 'partial' })).toBe('related');
    expect(gradePassage({ ...strong, sentenceCosine: 0.42 })).toBe('related');
  });

  it('a passage far from the question in meaning and words is only among the closest', () => {
    expect(gradePassage({ ...strong, rank: 3, label: 'partial', sentenceCosine: 0.2, coverage: 0.1 })).toBe('closest');
    // Without an embedding model the words decide.
    expect(gradePassage({ ...strong, sentenceCosine: null, coverage: 0.8 })).toBe('answer');
    expect(gradePassage({ ...strong, sentenceCosine: null, coverage: 0.1 })).toBe('closest');
  });

  it('a question asking for a figure is not answered by a passage without one', () => {
    expect(asksForAmount('How much does Bankers Bank pay Netzee for maintenance?')).toBe(true);
    expect(asksForAmount('How long is the initial term?')).toBe(true);
    expect(asksForAmount('What fee per tonne does Karakudukmunay pay?')).toBe(true);
    expect(asksForAmount('Which state law governs the agreement?')).toBe(false);
    expect(asksForAmount("What was Nichole Jagels' bail set at before her plea?")).toBe(true);
    expect(asksForAmount('What fine and restitution were imposed on Robert Wilson?')).toBe(true);
    expect(holdsAmount('a monthly fee of $4,500')).toBe(true);
    expect(holdsAmount('for sixty days')).toBe(true);
    expect(holdsAmount('The Provider shall maintain insurance.')).toBe(false);
    expect(gradePassage({ ...strong, lacksAskedFact: true })).toBe('related');
  });

  it('a section number, a date or a statute is not the figure asked for; the figure must be of the thing asked about', () => {
    expect(holdsAmount('as set forth in Section 4.2(a) and Exhibit B-1')).toBe(false);
    expect(holdsAmount('effective as of January 1, 2018')).toBe(false);
    expect(holdsAmount('made this 21st day of January 2003')).toBe(false);
    expect(holdsAmount('jurisdiction under 28 U.S.C. § 1291')).toBe(false);
    // A bankruptcy chapter or a court's number is no sum settled on.
    expect(holdsAmount('While in the midst of a Chapter 13 bankruptcy plan, she brought a claim')).toBe(false);
    expect(holdsAmount('appealed to the 11th Circuit under the 14th Amendment')).toBe(false);
    expect(holdsAmount('one of the parties')).toBe(false);
    expect(holdsAmount('ninety (90) days prior written notice')).toBe(true);
    expect(holdsAmount('a royalty of five percent (5%) of Net Sales')).toBe(true);
    expect(holdsAmount('12,000,000 impressions')).toBe(true);
    // A frequency answers "how often", not "how much".
    expect(holdsAmount('payable monthly', 'How often is the fee paid?')).toBe(true);
    expect(holdsAmount('payable monthly', 'How much is the fee?')).toBe(false);
    const q = 'How much key-man life insurance does Lifeway have to carry on Ludmila Smolyansky?';
    expect(holdsAskedFigure('Lifeway agrees to pay Individual a royalty equal to $0.02 for each product sold', q)).toBe(
      false,
    );
    expect(holdsAskedFigure('Lifeway shall carry key-man life insurance of $1,000,000 on Individual', q)).toBe(true);
    // The figure's subject may sit before a colon; a question with nothing but names and paying takes any figure.
    expect(
      holdsAskedFigure(
        'The insurance shall be in an amount of: $2,000,000 per occurrence',
        'How much liability insurance does Freeze Tag carry?',
      ),
    ).toBe(true);
    expect(holdsAskedFigure('a fee of $4,500', 'How much does Bangi pay?')).toBe(true);
  });

  it("the question's names are what a missing word means something for; everyday words are not", () => {
    expect(factTerms('Can TruckThat be paid in bitcoin or other cryptocurrency?')).toEqual(['TruckThat']);
    expect(factTerms('How did Ruben get hurt on the job for Create and Construct?')).toEqual([
      'Ruben',
      'Create',
      'Construct',
    ]);
    expect(factTerms("What is Zounds' warranty under the MSA, and is Section 5 needed?")).toEqual([
      'Zounds',
      'MSA',
      'Section',
    ]);
    expect(factTerms('Which Tesla vehicles are covered?')).toEqual(['Tesla']);
  });

  it('rarer everyday words are looked up too (in a large case, where nothing answers): long lower-case words, no function words', () => {
    expect(rareWords('What ransomware protections must the host maintain?')).toEqual([
      'ransomware',
      'protections',
      'maintain',
    ]);
    expect(rareWords('How is revenue split between Kubient and the Associated Press?')).toEqual(['revenue']);
    expect(rareWords('Can TruckThat be paid in bitcoin?')).toEqual(['bitcoin']);
    expect(rareWords('Are we the only one allowed to do this?')).toEqual([]);
  });
});
