//! Arithmetic expressions over sweep parameters: `"0.04 - arm/2"`, `"c0 / (4 * arm)"`.
//!
//! Numbers (`1.5e9`), names (parameters, derived values, the constants `pi` and `c0`),
//! `+ - * / ^` (`^` binds tightest and associates to the right), unary minus,
//! parentheses, and the functions `sqrt abs exp ln log10 sin cos tan floor ceil round`
//! (one argument) and `min max` (two or more). Errors carry the character offset in the
//! expression, so the sweep file's diagnostic points into the string.
use std::collections::BTreeMap;
use std::fmt;

/// Names an expression may use besides the parameters.
pub const CONSTANTS: [(&str, f64); 2] = [("pi", std::f64::consts::PI), ("c0", fdtd_scene::C0)];

const FUNCTIONS1: [&str; 11] = [
    "sqrt", "abs", "exp", "ln", "log10", "sin", "cos", "tan", "floor", "ceil", "round",
];
const FUNCTIONS_N: [&str; 2] = ["min", "max"];

/// Longest expression, in characters: a sweep value is a formula, not a program, and
/// the bound keeps parsing, evaluating and dropping it within any thread's stack.
pub const MAX_CHARS: usize = 4096;
/// Deepest nesting of the expression tree (parentheses, signs, powers, and each
/// operator of a long chain `a + b + c + ...` count one level).
pub const MAX_DEPTH: usize = 200;

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    text: String,
    node: Node,
}

#[derive(Clone, Debug, PartialEq)]
enum Node {
    Num(f64),
    /// A name and its character offset.
    Var(String, usize),
    Neg(Box<Node>),
    Bin(char, Box<Node>, Box<Node>),
    /// A function, its arguments and its character offset.
    Call(String, Vec<Node>, usize),
}

/// Why an expression does not parse or evaluate.
#[derive(Clone, Debug, PartialEq)]
pub struct ExprError {
    /// Character offset in the expression.
    pub at: usize,
    pub message: String,
    pub hint: Option<String>,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at character {})", self.message, self.at + 1)
    }
}

fn err(at: usize, message: impl Into<String>) -> ExprError {
    ExprError {
        at,
        message: message.into(),
        hint: None,
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Name(String),
    Op(char),
}

fn tokens(text: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let s: String = chars[start..i].iter().collect();
            let x = s
                .parse::<f64>()
                .map_err(|_| err(start, format!("{s:?} is not a number")))?;
            out.push((Tok::Num(x), start));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Tok::Name(chars[start..i].iter().collect()), start));
        } else if "+-*/^(),".contains(c) {
            out.push((Tok::Op(c), i));
            i += 1;
        } else {
            return Err(err(i, format!("unexpected character {c:?}")));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end: usize,
    /// Current recursion depth (every nested sub-expression passes through `unary`).
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }
    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |(_, a)| *a)
    }
    fn eat(&mut self, op: char) -> bool {
        if self.peek() == Some(&Tok::Op(op)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn sum(&mut self) -> Result<Node, ExprError> {
        let mut lhs = self.product()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op(c @ ('+' | '-'))) => *c,
                _ => return Ok(lhs),
            };
            self.pos += 1;
            lhs = Node::Bin(op, Box::new(lhs), Box::new(self.product()?));
        }
    }
    fn product(&mut self) -> Result<Node, ExprError> {
        let mut lhs = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op(c @ ('*' | '/'))) => *c,
                _ => return Ok(lhs),
            };
            self.pos += 1;
            lhs = Node::Bin(op, Box::new(lhs), Box::new(self.unary()?));
        }
    }
    fn unary(&mut self) -> Result<Node, ExprError> {
        if self.depth >= MAX_DEPTH {
            return Err(too_deep(self.at()));
        }
        self.depth += 1;
        let r = self.unary_inner();
        self.depth -= 1;
        r
    }
    fn unary_inner(&mut self) -> Result<Node, ExprError> {
        if self.eat('-') {
            return Ok(Node::Neg(Box::new(self.unary()?)));
        }
        if self.eat('+') {
            return self.unary();
        }
        self.power()
    }
    fn power(&mut self) -> Result<Node, ExprError> {
        let base = self.atom()?;
        if self.eat('^') {
            // Right-associative; the exponent may carry a sign (2^-3).
            return Ok(Node::Bin('^', Box::new(base), Box::new(self.unary()?)));
        }
        Ok(base)
    }
    fn atom(&mut self) -> Result<Node, ExprError> {
        let at = self.at();
        match self.toks.get(self.pos).cloned() {
            Some((Tok::Num(x), _)) => {
                self.pos += 1;
                Ok(Node::Num(x))
            }
            Some((Tok::Name(n), _)) => {
                self.pos += 1;
                if self.eat('(') {
                    let mut args = vec![self.sum()?];
                    while self.eat(',') {
                        args.push(self.sum()?);
                    }
                    if !self.eat(')') {
                        return Err(err(self.at(), "expected `)` or `,` in the function's arguments"));
                    }
                    check_call(&n, args.len(), at)?;
                    Ok(Node::Call(n, args, at))
                } else {
                    Ok(Node::Var(n, at))
                }
            }
            Some((Tok::Op('('), _)) => {
                self.pos += 1;
                let inner = self.sum()?;
                if !self.eat(')') {
                    return Err(err(self.at(), "expected `)`"));
                }
                Ok(inner)
            }
            Some((Tok::Op(c), _)) => Err(err(at, format!("expected a number, a name or `(`, found `{c}`"))),
            None => Err(err(at, "the expression ends too early")),
        }
    }
}

/// `text` for a message: at most 80 characters (a long one cut with `...`).
pub fn shorten(text: &str) -> String {
    if text.chars().count() <= 80 {
        text.to_string()
    } else {
        format!("{}...", text.chars().take(77).collect::<String>())
    }
}

fn too_deep(at: usize) -> ExprError {
    ExprError {
        at,
        message: format!("the expression is nested too deeply (more than {MAX_DEPTH} levels)"),
        hint: Some("split it into [derived] values".into()),
    }
}

/// Depth of the tree (recursive: called only on expressions of at most [`MAX_CHARS`]).
fn depth(n: &Node) -> usize {
    match n {
        Node::Num(_) | Node::Var(..) => 1,
        Node::Neg(a) => 1 + depth(a),
        Node::Bin(_, a, b) => 1 + depth(a).max(depth(b)),
        Node::Call(_, args, _) => 1 + args.iter().map(depth).max().unwrap_or(0),
    }
}

fn check_call(name: &str, n: usize, at: usize) -> Result<(), ExprError> {
    if FUNCTIONS1.contains(&name) {
        if n != 1 {
            return Err(err(at, format!("{name}() takes 1 argument, got {n}")));
        }
        return Ok(());
    }
    if FUNCTIONS_N.contains(&name) {
        if n < 2 {
            return Err(err(at, format!("{name}() takes 2 or more arguments, got {n}")));
        }
        return Ok(());
    }
    let all: Vec<&str> = FUNCTIONS1.iter().chain(FUNCTIONS_N.iter()).copied().collect();
    Err(ExprError {
        at,
        message: format!("unknown function {name:?}"),
        hint: Some(match fdtd_scene::diagnostic::suggest(name, &all) {
            Some(s) => format!("did you mean {s:?}?"),
            None => format!("the functions are {}", all.join(", ")),
        }),
    })
}

impl Expr {
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        let n = text.chars().count();
        if n > MAX_CHARS {
            return Err(ExprError {
                at: MAX_CHARS,
                message: format!("the expression is {n} characters long, more than {MAX_CHARS}"),
                hint: Some("split it into [derived] values".into()),
            });
        }
        let toks = tokens(text)?;
        let mut p = Parser {
            toks,
            pos: 0,
            end: n,
            depth: 0,
        };
        let node = p.sum()?;
        if p.pos < p.toks.len() {
            return Err(err(p.at(), "unexpected text after the expression"));
        }
        if depth(&node) > MAX_DEPTH {
            return Err(too_deep(0));
        }
        Ok(Expr {
            text: text.to_string(),
            node,
        })
    }

    /// The expression as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Every name the expression uses (not the functions), with its character offset.
    pub fn names(&self) -> Vec<(String, usize)> {
        fn walk(n: &Node, out: &mut Vec<(String, usize)>) {
            match n {
                Node::Num(_) => {}
                Node::Var(v, at) => out.push((v.clone(), *at)),
                Node::Neg(a) => walk(a, out),
                Node::Bin(_, a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
                Node::Call(_, args, _) => args.iter().for_each(|a| walk(a, out)),
            }
        }
        let mut out = Vec::new();
        walk(&self.node, &mut out);
        out
    }

    /// Evaluate with `vars` (the constants are always there); a result that is not a
    /// finite number is an error.
    pub fn eval(&self, vars: &BTreeMap<String, f64>) -> Result<f64, ExprError> {
        let x = eval(&self.node, vars)?;
        if x.is_finite() {
            Ok(x)
        } else {
            Err(err(0, format!("the value is not a finite number ({x})")))
        }
    }
}

fn eval(n: &Node, vars: &BTreeMap<String, f64>) -> Result<f64, ExprError> {
    Ok(match n {
        Node::Num(x) => *x,
        Node::Var(name, at) => match vars.get(name) {
            Some(x) => *x,
            None => match CONSTANTS.iter().find(|(c, _)| c == name) {
                Some((_, x)) => *x,
                None => {
                    let mut known: Vec<&str> = vars.keys().map(|k| k.as_str()).collect();
                    known.extend(CONSTANTS.iter().map(|(c, _)| *c));
                    return Err(ExprError {
                        at: *at,
                        message: format!("unknown name {name:?}"),
                        hint: Some(match fdtd_scene::diagnostic::suggest(name, &known) {
                            Some(s) => format!("did you mean {s:?}?"),
                            None => format!("known names: {}", known.join(", ")),
                        }),
                    });
                }
            },
        },
        Node::Neg(a) => -eval(a, vars)?,
        Node::Bin(op, a, b) => {
            let (a, b) = (eval(a, vars)?, eval(b, vars)?);
            match op {
                '+' => a + b,
                '-' => a - b,
                '*' => a * b,
                '/' => a / b,
                _ => a.powf(b),
            }
        }
        Node::Call(f, args, _) => {
            let xs = args.iter().map(|a| eval(a, vars)).collect::<Result<Vec<_>, _>>()?;
            let x = xs[0];
            match f.as_str() {
                "sqrt" => x.sqrt(),
                "abs" => x.abs(),
                "exp" => x.exp(),
                "ln" => x.ln(),
                "log10" => x.log10(),
                "sin" => x.sin(),
                "cos" => x.cos(),
                "tan" => x.tan(),
                "floor" => x.floor(),
                "ceil" => x.ceil(),
                "round" => x.round(),
                "min" => xs.iter().copied().fold(f64::INFINITY, f64::min),
                _ => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(s: &str, vars: &[(&str, f64)]) -> Result<f64, ExprError> {
        let v = vars.iter().map(|(k, x)| (k.to_string(), *x)).collect();
        Expr::parse(s)?.eval(&v)
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(ev("1 + 2 * 3", &[]).unwrap(), 7.0);
        assert_eq!(ev("(1 + 2) * 3", &[]).unwrap(), 9.0);
        assert_eq!(ev("2 ^ 3 ^ 2", &[]).unwrap(), 512.0);
        assert_eq!(ev("-2 ^ 2", &[]).unwrap(), -4.0);
        assert_eq!(ev("2 ^ -1", &[]).unwrap(), 0.5);
        assert_eq!(ev("8 / 4 / 2", &[]).unwrap(), 1.0);
        assert_eq!(ev("10 - 4 - 3", &[]).unwrap(), 3.0);
        assert_eq!(ev("1.5e9 + 5e8", &[]).unwrap(), 2e9);
        assert_eq!(ev(".5", &[]).unwrap(), 0.5);
    }

    #[test]
    fn names_constants_and_functions() {
        assert!((ev("0.04 - arm/2", &[("arm", 0.02)]).unwrap() - 0.03).abs() < 1e-15);
        assert!((ev("c0 / (4 * arm)", &[("arm", 0.05)]).unwrap() - fdtd_scene::C0 / 0.2).abs() < 1e-6);
        assert_eq!(ev("max(1, 3, 2) + min(4, -1)", &[]).unwrap(), 2.0);
        assert_eq!(ev("sqrt(16) + abs(-1) + round(2.6)", &[]).unwrap(), 8.0);
        assert!((ev("cos(pi)", &[]).unwrap() + 1.0).abs() < 1e-15);
        let e = Expr::parse("a * b + sqrt(a)").unwrap();
        let names: Vec<String> = e.names().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["a", "b", "a"]);
    }

    #[test]
    fn errors_point_into_the_expression() {
        let e = ev("0.04 - amr/2", &[("arm", 1.0)]).unwrap_err();
        assert_eq!(e.at, 7);
        assert_eq!(e.hint.as_deref(), Some("did you mean \"arm\"?"));
        let e = Expr::parse("1 + * 2").unwrap_err();
        assert_eq!(e.at, 4);
        let e = Expr::parse("(1 + 2").unwrap_err();
        assert!(e.message.contains("expected `)`"), "{e}");
        let e = Expr::parse("sqr(2)").unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("did you mean \"sqrt\"?"));
        let e = Expr::parse("min(2)").unwrap_err();
        assert!(e.message.contains("2 or more"), "{e}");
        let e = Expr::parse("2 $ 3").unwrap_err();
        assert_eq!(e.at, 2);
        let e = Expr::parse("1 2").unwrap_err();
        assert!(e.message.contains("after the expression"), "{e}");
        let e = ev("1 / 0", &[]).unwrap_err();
        assert!(e.message.contains("not a finite number"), "{e}");
        assert!(Expr::parse("").is_err());
    }

    /// 10 000 parentheses and a 30 000-term sum used to overflow the stack (exit 134).
    #[test]
    fn deep_and_long_expressions_are_refused_not_a_crash() {
        let run = || {
            let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
            let e = Expr::parse(&deep).unwrap_err();
            assert!(e.message.contains("more than 4096"), "{e}");
            let deep = format!("{}1{}", "(".repeat(1_000), ")".repeat(1_000));
            let e = Expr::parse(&deep).unwrap_err();
            assert!(e.message.contains("nested too deeply"), "{e}");
            assert_eq!(e.at, MAX_DEPTH);
            let long = vec!["1"; 30_000].join("+");
            assert!(Expr::parse(&long).unwrap_err().message.contains("characters long"));
            let chain = vec!["1"; 1_000].join("+");
            assert!(Expr::parse(&chain).unwrap_err().message.contains("nested too deeply"));
            let neg = format!("{}1", "-".repeat(2_000));
            assert!(Expr::parse(&neg).unwrap_err().message.contains("nested too deeply"));
            let pow = vec!["1"; 1_000].join("^");
            assert!(Expr::parse(&pow).unwrap_err().message.contains("nested too deeply"));
            // Within the bounds, on a small stack, they parse and evaluate.
            let ok = format!("{}1{}", "(".repeat(150), ")".repeat(150));
            assert_eq!(ev(&ok, &[]).unwrap(), 1.0);
            assert_eq!(ev(&vec!["1"; 150].join("+"), &[]).unwrap(), 150.0);
        };
        // A 256 KiB stack: what a small worker thread may have.
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(run)
            .unwrap()
            .join()
            .unwrap();
    }
}
