/**
 * The short-answer questions: general-knowledge facts written for envroll (no external dataset),
 * each with every spelling a grader should accept. Order is the task order.
 */
export interface Question {
  question: string;
  /** Acceptable answers, the canonical one first. */
  answers: string[];
}

export const QUESTIONS: readonly Question[] = [
  { question: "What is the capital of France?", answers: ["Paris"] },
  { question: "How many legs does a spider have?", answers: ["8", "eight"] },
  { question: "Which planet is known as the Red Planet?", answers: ["Mars"] },
  { question: "What is the chemical symbol for gold?", answers: ["Au"] },
  { question: "How many days are there in a leap year?", answers: ["366"] },
  {
    question: "Which gas do plants take in from the air for photosynthesis?",
    answers: ["carbon dioxide", "CO2"],
  },
  { question: 'Who wrote the play "Romeo and Juliet"?', answers: ["William Shakespeare", "Shakespeare"] },
  { question: "What is the largest ocean on Earth?", answers: ["the Pacific Ocean", "Pacific"] },
  { question: "At how many degrees Celsius does water boil at sea level?", answers: ["100"] },
  { question: "How many sides does a hexagon have?", answers: ["6", "six"] },
  { question: "What is the square root of 81?", answers: ["9", "nine"] },
  { question: "Which element has atomic number 1?", answers: ["hydrogen"] },
  { question: "What is the longest river in South America?", answers: ["the Amazon", "Amazon"] },
  { question: "On which continent is Egypt?", answers: ["Africa"] },
  { question: "What is 12 multiplied by 12?", answers: ["144"] },
  { question: "At how many degrees Fahrenheit does water freeze?", answers: ["32"] },
  { question: "What is the smallest prime number?", answers: ["2", "two"] },
  { question: "What is the capital of Japan?", answers: ["Tokyo"] },
  { question: "How many minutes are there in an hour?", answers: ["60", "sixty"] },
  { question: "Which colour do you get by mixing blue and yellow paint?", answers: ["green"] },
  { question: "Which organ pumps blood around the human body?", answers: ["the heart", "heart"] },
  { question: "What is the hardest naturally occurring mineral?", answers: ["diamond"] },
  { question: "How many continents are there on Earth?", answers: ["7", "seven"] },
  { question: "Who painted the Mona Lisa?", answers: ["Leonardo da Vinci", "da Vinci", "Leonardo"] },
  { question: "What is the largest planet in the solar system?", answers: ["Jupiter"] },
  { question: "How many strings does a standard violin have?", answers: ["4", "four"] },
  { question: "What is the capital of Australia?", answers: ["Canberra"] },
  { question: "In which year did people first walk on the Moon?", answers: ["1969"] },
  { question: "How many bits are there in a byte?", answers: ["8", "eight"] },
  { question: "Which metal is liquid at room temperature?", answers: ["mercury"] },
  { question: "What is the opposite of the compass direction north?", answers: ["south"] },
  { question: "How many hours are there in a day?", answers: ["24", "twenty-four"] },
];
