//! Procedural macros of the `racer` data race detector.
//!
//! This crate provides [`macro@test`], re-exported by the facade as `#[racer::test]`.
//! Use it through the facade (`racer`), never directly: the expansion refers to
//! `::racer::check`.
//!
//! With the `race-detect` feature (enabled by `racer/race-detect`), a `#[racer::test]`
//! runs its body under `racer::check` and fails when races were found. Without it,
//! the attribute is a plain `#[test]`.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Item, ItemFn};

/// Marks a function as a test that runs under the race detector.
///
/// ```text
/// #[racer::test]
/// fn counter_is_race_free() {
///     let c = racer::sync::Arc::new(racer::sync::Mutex::new(0));
///     // ...
/// }
/// ```
///
/// With the `race-detect` feature, the body runs inside `racer::check`; when the
/// returned report is not empty the test panics with the full report. Panics of the
/// body propagate unchanged (so `#[should_panic]` works), `return` leaves the body,
/// and a `Result` return type with `?` works as for `#[test]`. Without the feature
/// this is exactly `#[test]`.
///
/// `#[racer::test(model)]` runs the body under `racer::model` instead: many iterations, each
/// under a controlled schedule (PCT and random), failing on the first that found a race, a
/// deadlock or a panic, with the seed and the `RACER_REPLAY=...` line that replays it. The
/// body then returns `()`.
///
/// On an `async fn` (with racer's feature `tokio`) the body runs on a tokio runtime, as with
/// `#[tokio::test]`, which takes the same arguments: `flavor = "current_thread"` (the default)
/// or `"multi_thread"`, `worker_threads = N`, `start_paused = true`. Under `race-detect` each
/// task spawned through `racer::tokio` is a logical thread, checked against the others.
///
/// The function must be a plain, non-generic function without arguments. Every other
/// attribute (`#[should_panic]`, `#[ignore]`, doc comments, `#[cfg]`, ...) is kept, in order.
#[proc_macro_attribute]
pub fn test(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(tokens) => tokens.into(),
    }
}

fn expand(attr: TokenStream2, item: TokenStream2) -> Result<TokenStream2, TokenStream2> {
    let args = Args::parse(attr)?;
    let model = args.model;

    let func = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(func)) => func,
        Ok(other) => {
            // Keep the item so that uses of it do not produce follow-up errors.
            let err = syn::Error::new_spanned(item_head(&other), "#[racer::test] can only be applied to a function")
                .to_compile_error();
            return Err(quote! { #err #other });
        }
        Err(_) => {
            let err =
                syn::Error::new(item.span(), "#[racer::test] can only be applied to a function").to_compile_error();
            return Err(quote! { #err #item });
        }
    };

    validate(&func).map_err(|e| e.to_compile_error())?;
    let func = if func.sig.asyncness.is_some() {
        on_runtime(func, &args)?
    } else {
        args.no_runtime()?;
        func
    };
    if model && !matches!(func.sig.output, syn::ReturnType::Default) {
        return Err(
            syn::Error::new_spanned(&func.sig.output, "#[racer::test(model)] functions return ()").to_compile_error()
        );
    }

    Ok(match (cfg!(feature = "race-detect"), model) {
        (true, true) => expand_model(func),
        (true, false) => expand_checked(func),
        (false, _) => expand_plain(func),
    })
}

/// The tokens used to point at a non-function item: its keyword and name if it has
/// them, else the whole item.
fn item_head(item: &Item) -> TokenStream2 {
    macro_rules! head {
        ($i:expr, $kw:expr) => {{
            let i = $i;
            let kw = &$kw;
            let ident = &i.ident;
            quote! { #kw #ident }
        }};
    }
    match item {
        Item::Struct(i) => head!(i, i.struct_token),
        Item::Enum(i) => head!(i, i.enum_token),
        Item::Union(i) => head!(i, i.union_token),
        Item::Const(i) => head!(i, i.const_token),
        Item::Static(i) => head!(i, i.static_token),
        Item::Mod(i) => head!(i, i.mod_token),
        Item::Trait(i) => head!(i, i.trait_token),
        Item::Type(i) => head!(i, i.type_token),
        other => other.to_token_stream(),
    }
}

fn validate(func: &ItemFn) -> syn::Result<()> {
    let sig = &func.sig;
    if let Some(constness) = &sig.constness {
        return Err(syn::Error::new_spanned(constness, "#[racer::test] does not support const fn"));
    }
    if let Some(unsafety) = &sig.unsafety {
        return Err(syn::Error::new_spanned(unsafety, "#[racer::test] functions cannot be unsafe"));
    }
    if let Some(abi) = &sig.abi {
        return Err(syn::Error::new_spanned(abi, "#[racer::test] functions cannot have an explicit ABI"));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        let tokens = {
            let g = &sig.generics;
            let w = &sig.generics.where_clause;
            quote! { #g #w }
        };
        return Err(syn::Error::new_spanned(tokens, "#[racer::test] functions cannot be generic"));
    }
    if !sig.inputs.is_empty() || sig.variadic.is_some() {
        let inputs = &sig.inputs;
        let variadic = &sig.variadic;
        return Err(syn::Error::new_spanned(
            quote! { #inputs #variadic },
            "#[racer::test] functions cannot take arguments",
        ));
    }
    Ok(())
}

/// The attribute's arguments: `model`, or those `#[tokio::test]` takes for an `async fn`.
#[derive(Default)]
struct Args {
    model: bool,
    /// `flavor = "current_thread"` (the default, as tokio's) or `"multi_thread"`.
    flavor: Option<syn::LitStr>,
    worker_threads: Option<syn::Expr>,
    start_paused: Option<syn::Expr>,
}

impl Args {
    fn parse(attr: TokenStream2) -> Result<Args, TokenStream2> {
        let error = |span: &dyn ToTokens| {
            syn::Error::new_spanned(
                span,
                "#[racer::test] takes `model`, or for an async fn `flavor = \"current_thread\" | \"multi_thread\"`, \
                 `worker_threads = N` and `start_paused = true|false` (as #[tokio::test])",
            )
            .to_compile_error()
        };
        let metas = syn::parse::Parser::parse2(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            attr.clone(),
        )
        .map_err(|_| error(&attr))?;
        let mut args = Args::default();
        for meta in metas {
            match &meta {
                syn::Meta::Path(p) if p.is_ident("model") => args.model = true,
                syn::Meta::NameValue(nv) if nv.path.is_ident("flavor") => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })
                        if matches!(s.value().as_str(), "current_thread" | "multi_thread") =>
                    {
                        args.flavor = Some(s.clone())
                    }
                    _ => return Err(error(&meta)),
                },
                syn::Meta::NameValue(nv) if nv.path.is_ident("worker_threads") => {
                    args.worker_threads = Some(nv.value.clone())
                }
                syn::Meta::NameValue(nv) if nv.path.is_ident("start_paused") => {
                    args.start_paused = Some(nv.value.clone())
                }
                _ => return Err(error(&meta)),
            }
        }
        Ok(args)
    }

    /// The runtime's arguments, given to a function that is not async.
    fn no_runtime(&self) -> Result<(), TokenStream2> {
        let given = (self.flavor.as_ref().map(ToTokens::to_token_stream))
            .or_else(|| self.worker_threads.as_ref().map(ToTokens::to_token_stream))
            .or_else(|| self.start_paused.as_ref().map(ToTokens::to_token_stream));
        match given {
            Some(tokens) => Err(syn::Error::new_spanned(
                tokens,
                "`flavor`, `worker_threads` and `start_paused` are for an async fn test (tokio's runtime)",
            )
            .to_compile_error()),
            None => Ok(()),
        }
    }
}

/// An `async fn` test made a synchronous one whose body runs on a tokio runtime built as
/// `#[tokio::test]` builds it (through `::racer::tokio`, so the user's crate needs racer's
/// feature `tokio` and no tokio of its own). Under `race-detect` the runtime is built and
/// run inside the test's `racer::check`, so every task it runs is in the check.
fn on_runtime(mut func: ItemFn, args: &Args) -> Result<ItemFn, TokenStream2> {
    let asyncness = func.sig.asyncness.take();
    if args.model {
        return Err(syn::Error::new_spanned(
            asyncness,
            "#[racer::test(model)] does not explore tokio's tasks: use #[racer::test] on the async fn (each task is \
             then a logical thread, checked on real threads)",
        )
        .to_compile_error());
    }
    if !cfg!(feature = "tokio") {
        return Err(syn::Error::new_spanned(
            asyncness,
            "#[racer::test] on an async fn runs it on tokio's runtime: enable racer's feature `tokio` \
             (racer = { ..., features = [\"tokio\"] })",
        )
        .to_compile_error());
    }
    let multi = args.flavor.as_ref().is_some_and(|f| f.value() == "multi_thread");
    if args.worker_threads.is_some() && !multi {
        let w = args.worker_threads.as_ref();
        return Err(syn::Error::new_spanned(w, "`worker_threads` needs `flavor = \"multi_thread\"`").to_compile_error());
    }
    let mut builder = if multi {
        quote! { ::racer::tokio::runtime::Builder::new_multi_thread() }
    } else {
        quote! { ::racer::tokio::runtime::Builder::new_current_thread() }
    };
    if let Some(n) = &args.worker_threads {
        builder = quote! { #builder.worker_threads(#n) };
    }
    if let Some(paused) = &args.start_paused {
        builder = quote! { #builder.start_paused(#paused) };
    }
    let block = &func.block;
    let body = quote! {{
        let body = async move #block;
        #builder.enable_all().build().expect("racer: failed to build the test's tokio runtime").block_on(body)
    }};
    func.block = Box::new(syn::parse2(body).map_err(|e| e.to_compile_error())?);
    Ok(func)
}

/// Whether `attr` is a bare `#[test]` (the user wrote both attributes).
fn is_plain_test_attr(attr: &syn::Attribute) -> bool {
    matches!(&attr.meta, syn::Meta::Path(p) if p.is_ident("test"))
}

/// The `#[test]` attribute to add, unless the user already wrote one. The path is
/// fully qualified so that a `use racer::test;` at the call site cannot make the
/// expansion refer to this macro again.
fn test_attr(func: &ItemFn) -> TokenStream2 {
    if func.attrs.iter().any(is_plain_test_attr) {
        TokenStream2::new()
    } else {
        quote_spanned! {func.sig.ident.span()=> #[::core::prelude::v1::test] }
    }
}

/// Feature off: a plain `#[test]`, body unchanged.
fn expand_plain(func: ItemFn) -> TokenStream2 {
    let test = test_attr(&func);
    let ItemFn { attrs, vis, sig, block } = func;
    quote! {
        #(#attrs)*
        #test
        #vis #sig #block
    }
}

/// Feature on, `model`: the body runs under `::racer::model`, which fails the test itself.
fn expand_model(func: ItemFn) -> TokenStream2 {
    let test = test_attr(&func);
    let ItemFn { attrs, vis, sig, block } = func;
    let body_fn = syn::Ident::new("__racer_test_body", Span::mixed_site());
    quote! {
        #(#attrs)*
        #test
        #vis #sig {
            fn #body_fn() #block
            ::racer::model(#body_fn);
        }
    }
}

/// Feature on: the body runs under `::racer::check`; a non-empty report fails the test.
fn expand_checked(func: ItemFn) -> TokenStream2 {
    let test = test_attr(&func);
    let ItemFn { attrs, vis, sig, block } = func;
    let name = sig.ident.unraw().to_string();
    let output = &sig.output;

    // Names local to the expansion; mixed-site hygiene keeps them apart from the user's.
    let span = Span::mixed_site();
    let body_fn = syn::Ident::new("__racer_test_body", span);
    let result = syn::Ident::new("__racer_result", span);
    let report = syn::Ident::new("__racer_report", span);

    quote! {
        #(#attrs)*
        #test
        #vis #sig {
            // The original body, as a function of its own: `return` and `?` keep
            // their meaning and the declared return type.
            fn #body_fn() #output #block

            let mut #result = ::core::option::Option::None;
            let #report = ::racer::check(|| {
                #result = ::core::option::Option::Some(#body_fn());
            });
            if let ::core::option::Option::Some(message) = #report.failure_in_test(#name) {
                ::std::panic!("{}", message);
            }
            match #result {
                ::core::option::Option::Some(value) => value,
                ::core::option::Option::None => ::std::unreachable!(
                    "racer::check returned without running the body of test `{}`",
                    #name,
                ),
            }
        }
    }
}
