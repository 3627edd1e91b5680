/**
 * Words of a question that are never names, whatever their case: the instructions analysts
 * open a request with ("Summarise", "Ignore", "Explain"), question words, words about the
 * request itself ("instructions", "summary", "bullet points"), roles ("CEO's"), and the ways a
 * city tier is written ("Tier II"). The entity resolver never reports these as unknown entities.
 */

/** Imperatives a request opens with (both spellings where British and American differ). */
const INSTRUCTIONS = `summarise summarize summarising summarizing compare contrast ignore disregard forget give tell explain list show describe find
  get fetch pull provide write draft outline analyse analyze break rank track check brief highlight share name identify estimate
  forecast predict prepare create make help look search report update recap review assess evaluate discuss detail elaborate
  clarify consider focus include exclude skip keep add remove drop tabulate chart plot map split group sort filter count sum
  total calculate compute quantify measure break-down breakdown walk guide let pretend act respond answer reply say state note
  mention cite quote verify confirm double-check flag point spell translate rewrite rephrase shorten expand continue repeat
  stop start begin run do please kindly`.split(/\s+/);

/** Question words and function words, also when capitalised mid-sentence for emphasis. */
const FUNCTION_WORDS = `what whats which who whos whom whose where wheres when whens why how hows whether whatever whichever however
  is are was were be been being am do does did done has have had having can could would should will shall may might must
  the a an this that these those there here it its it's they them their theirs we us our ours you your yours he she his her
  i me my mine and or but nor yet so if then than else also too very just only even still already again ever never
  not no yes all any some each every both either neither none most more less least many much few several other another
  such same own about above below across after before during since until within without between among into onto from
  over under up down out off on in at by for of to with as per via vs versus etc eg ie`.split(/\s+/);

/** Words about the request and the answer rather than the world. */
const REQUEST_WORDS = `instruction instructions prompt previous prior earlier above below following everything anything something nothing
  summary summaries overview brief briefing recap update updates news latest recent recently lately today yesterday
  tomorrow week weeks month months quarter quarters year years day days bullet bullets point points table tables
  paragraph paragraphs sentence sentences word words detail details info information data figure figures number numbers
  stat stats statistics source sources signal signals citation citations reference references answer answers question
  questions example examples key main major important top notable highlights takeaway takeaways insight insights
  analysis trend trends outlook view views status situation picture story stories development developments thing things
  note notes short long quick full complete detailed simple plain`.split(/\s+/);

/** Roles and titles: "CEO's comments" names no one. */
const ROLES = `ceo cfo coo cto cmo cxo md chairman chairperson chair founder founders cofounder co-founder president head chief director
  directors board management executive executives manager managers promoter promoters founder's analyst analysts
  investor investors spokesperson official officials minister ministry government govt regulator regulators`.split(/\s+/);

/** Generic nouns of the trade. */
const TRADE_WORDS = `company companies firm firms retailer retailers brand brands chain chains player players business businesses
  sector industry market markets segment segments category categories city cities town towns state states region regions
  metro metros store stores outlet outlets app apps platform platforms delivery customer customers consumer consumers
  price prices pricing discount discounts sale sales revenue profit margin margins growth share stake deal deals
  opening openings closure closures expansion launch launches hiring jobs funding round ipo listing`.split(/\s+/);

/** Lower case, letters/digits/& only (as the resolver squashes words). */
const squashWord = (word: string): string => word.toLowerCase().replace(/[^a-z0-9&]+/g, '');

export const NEVER_NAMES: ReadonlySet<string> = new Set([...INSTRUCTIONS, ...FUNCTION_WORDS, ...REQUEST_WORDS, ...ROLES, ...TRADE_WORDS].map(squashWord).filter((word) => word.length > 0));

/** "Tier-2", "tier II", "tier two", "Y-class": the words that name a city tier. */
const TIER_WORD = /^(tier(s)?(1|2|3|i|ii|iii|one|two|three)?|i|ii|iii|x|y|z|xclass|yclass|zclass|class|category)$/;

/** Whether a squashed word can never be (part of) a name. */
export function isNeverName(key: string): boolean {
  return NEVER_NAMES.has(key) || TIER_WORD.test(key);
}

/**
 * Words that, right after a sentence's first word, show it is a verb: "Summarise the…",
 * "Ignore previous…", "Explain why…", "Walk me through…". A name is followed by these rarely.
 */
export const OBJECT_STARTERS: ReadonlySet<string> = new Set(
  `the a an me us my our this that these those all any every each some what why how whether which who where when
  everything anything previous prior above below it them its their your his her latest recent last new top key main`.split(/\s+/),
);
