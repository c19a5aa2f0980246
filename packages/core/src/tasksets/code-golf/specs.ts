/**
 * code-golf problems: `[name, description, expected stdout]` plus a short reference solution.
 * The first three are verifiers 0.2.0's SPECS, verbatim and in order (task idx 0–2 match the
 * reference); the rest are envroll's own. Every solution is checked to print exactly `expected`
 * by test/tasksets/code-golf-specs.test.ts (python3 in the sandbox). Descriptions are phrased to
 * follow "Print " and to determine the output exactly.
 */

export interface GolfSpec {
  name: string;
  description: string;
  expected: string;
  /** A short correct program (used by tests and the built-in engine's reference policy). */
  solution: string;
}

export const REFERENCE_SPECS: readonly GolfSpec[] = [
  {
    name: "simple-sum",
    description: "the sum of the integers 1 to 100",
    expected: "5050",
    solution: "print(sum(range(101)))",
  },
  {
    name: "fibonacci",
    description: "the first 10 Fibonacci numbers space-separated on one line",
    expected: "0 1 1 2 3 5 8 13 21 34",
    solution: "a,b=0,1\nfor _ in range(10):print(a,end=' ');a,b=b,a+b",
  },
  {
    name: "reverse-str",
    description: "the string HELLO reversed",
    expected: "OLLEH",
    solution: "print('HELLO'[::-1])",
  },
];

export const EXTRA_SPECS: readonly GolfSpec[] = [
  {
    name: "factorial",
    description: "10 factorial (10!) as an integer",
    expected: "3628800",
    solution: "import math;print(math.factorial(10))",
  },
  {
    name: "primes-below-50",
    description: "the prime numbers below 50 separated by commas without spaces",
    expected: "2,3,5,7,11,13,17,19,23,29,31,37,41,43,47",
    solution: "print(*[n for n in range(2,50)if all(n%d for d in range(2,n))],sep=',')",
  },
  {
    name: "squares",
    description: "the squares of the integers 1 to 10 space-separated on one line",
    expected: "1 4 9 16 25 36 49 64 81 100",
    solution: "print(*[i*i for i in range(1,11)])",
  },
  {
    name: "fizzbuzz-15",
    description:
      "FizzBuzz for 1 to 15, one entry per line (Fizz for multiples of 3, Buzz for multiples of 5, FizzBuzz for both, else the number)",
    expected: "1\n2\nFizz\n4\nBuzz\nFizz\n7\n8\nFizz\nBuzz\n11\nFizz\n13\n14\nFizzBuzz",
    solution: "for i in range(1,16):print('Fizz'*(i%3<1)+'Buzz'*(i%5<1)or i)",
  },
  {
    name: "powers-of-two",
    description: "the powers of 2 from 2^0 to 2^10 space-separated on one line",
    expected: "1 2 4 8 16 32 64 128 256 512 1024",
    solution: "print(*[2**i for i in range(11)])",
  },
  {
    name: "alphabet",
    description: "the lowercase English alphabet as a single word",
    expected: "abcdefghijklmnopqrstuvwxyz",
    solution: "import string;print(string.ascii_lowercase)",
  },
  {
    name: "triangle",
    description: "a right triangle of asterisks with 4 rows, where row i (from 1) has i asterisks",
    expected: "*\n**\n***\n****",
    solution: "for i in range(1,5):print('*'*i)",
  },
  {
    name: "collatz-27",
    description: "the number of steps the Collatz sequence starting at 27 takes to reach 1",
    expected: "111",
    solution: "n,s=27,0\nwhile n>1:n=n//2 if n%2<1 else 3*n+1;s+=1\nprint(s)",
  },
  {
    name: "digit-sum",
    description: "the sum of the decimal digits of 2 to the power 1000",
    expected: "1366",
    solution: "print(sum(map(int,str(2**1000))))",
  },
  {
    name: "palindromes",
    description: "the palindromic numbers from 100 to 200 space-separated on one line",
    expected: "101 111 121 131 141 151 161 171 181 191",
    solution: "print(*[i for i in range(100,201)if str(i)==str(i)[::-1]])",
  },
  {
    name: "gcd",
    description: "the greatest common divisor of 1071 and 462",
    expected: "21",
    solution: "import math;print(math.gcd(1071,462))",
  },
  {
    name: "binary",
    description: "the number 2024 in binary, without a 0b prefix",
    expected: "11111101000",
    solution: "print(f'{2024:b}')",
  },
  {
    name: "vowel-count",
    description: "the number of vowels (a, e, i, o, u) in the word onomatopoeia",
    expected: "8",
    solution: "print(sum(c in'aeiou'for c in'onomatopoeia'))",
  },
  {
    name: "leap-years",
    description: "the leap years from 1990 to 2030 inclusive, space-separated on one line",
    expected: "1992 1996 2000 2004 2008 2012 2016 2020 2024 2028",
    solution: "import calendar;print(*[y for y in range(1990,2031)if calendar.isleap(y)])",
  },
  {
    name: "pascal-row",
    description: "row 6 of Pascal's triangle (the top row being row 0), space-separated",
    expected: "1 6 15 20 15 6 1",
    solution: "import math;print(*[math.comb(6,k)for k in range(7)])",
  },
  {
    name: "times-table",
    description: "the 3 times table from 3x1 to 3x5, one line each, formatted like 3x1=3",
    expected: "3x1=3\n3x2=6\n3x3=9\n3x4=12\n3x5=15",
    solution: "for i in range(1,6):print(f'3x{i}={3*i}')",
  },
  {
    name: "caesar",
    description: "the string HELLO with each letter shifted forward by 3 in the alphabet (Caesar cipher)",
    expected: "KHOOR",
    solution: "print(''.join(chr(ord(c)+3)for c in'HELLO'))",
  },
];

export const ALL_SPECS: readonly GolfSpec[] = [...REFERENCE_SPECS, ...EXTRA_SPECS];
