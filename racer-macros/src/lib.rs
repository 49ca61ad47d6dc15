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
/// body then returns `()`. On an `async fn` the body runs on `racer::model::block_on` in each
/// iteration, and every task spawned through `racer::tokio` (`spawn`, `spawn_blocking`, a
/// runtime's `spawn`) is a model thread of its own, interleaved with the others at every point
/// racer sees; a task that nothing will wake (a lost wake-up) is a deadlock. No tokio runtime
/// runs there, so it takes none of the runtime's arguments; without `race-detect` the body
/// runs once on a current-thread runtime.
///
/// On an `async fn` (with racer's feature `tokio`) the body runs on a tokio runtime, as with
/// `#[tokio::test]`, with every argument `#[tokio::test]` (tokio-macros 2.7) takes and its
/// checks: `flavor = "current_thread"` (the default), `"multi_thread"` or `"local"` (a
/// `LocalRuntime`), `worker_threads = N` (multi-thread), `start_paused = true` (current-thread
/// or local), `unhandled_panic = "ignore" | "shutdown_runtime"` (current-thread or local; it
/// needs `--cfg tokio_unstable` as tokio's does), `crate = "path"` (the tokio crate to build the
/// runtime from, `::racer::tokio` by default) and `name = "..."` (the runtime's name). Under
/// `race-detect` each task spawned through `racer::tokio` is a logical thread, checked against
/// the others.
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
    let (func, beside) = if func.sig.asyncness.is_some() {
        on_runtime(func, &args)?
    } else {
        args.no_runtime()?;
        (func, TokenStream2::new())
    };
    if model && !matches!(func.sig.output, syn::ReturnType::Default) {
        return Err(
            syn::Error::new_spanned(&func.sig.output, "#[racer::test(model)] functions return ()").to_compile_error()
        );
    }

    let test = match (cfg!(feature = "race-detect"), model) {
        (true, true) => expand_model(func),
        (true, false) => expand_checked(func),
        (false, _) => expand_plain(func),
    };
    Ok(quote! { #test #beside })
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

/// The runtime flavors of `#[tokio::test]`.
#[derive(Clone, Copy, PartialEq)]
enum Flavor {
    CurrentThread,
    MultiThread,
    Local,
}

/// The attribute's arguments: `model`, or those `#[tokio::test]` (tokio-macros 2.7) takes for an
/// `async fn`: `flavor`, `worker_threads`, `start_paused`, `unhandled_panic`, `crate`, `name`.
#[derive(Default)]
struct Args {
    model: bool,
    /// `flavor = "current_thread"` (the default, as tokio's), `"multi_thread"` or `"local"`.
    flavor: Option<(Flavor, Span)>,
    worker_threads: Option<syn::Expr>,
    start_paused: Option<syn::Expr>,
    /// `unhandled_panic = "ignore" | "shutdown_runtime"`: the variant of tokio's
    /// `runtime::UnhandledPanic` (which exists only under `--cfg tokio_unstable`, as for tokio).
    unhandled_panic: Option<(syn::Ident, Span)>,
    /// `crate = "path"`: the path of the tokio crate the runtime is built from (default
    /// `::racer::tokio`).
    crate_path: Option<syn::Path>,
    /// `name = "..."`: the runtime's name (`Builder::name`).
    name: Option<syn::LitStr>,
}

const EXPECTED: &str = "expected one of: `model`, or for an async fn (as #[tokio::test]) `flavor`, `worker_threads`, \
                        `start_paused`, `crate`, `unhandled_panic`, `name`";

fn err(span: Span, msg: impl std::fmt::Display) -> TokenStream2 {
    syn::Error::new(span, msg).to_compile_error()
}

fn lit_str(value: &syn::Expr, field: &str) -> Result<syn::LitStr, TokenStream2> {
    match value {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Ok(s.clone()),
        other => Err(err(other.span(), format!("Failed to parse value of `{field}` as string."))),
    }
}

impl Args {
    fn parse(attr: TokenStream2) -> Result<Args, TokenStream2> {
        let metas = syn::parse::Parser::parse2(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            attr.clone(),
        )
        .map_err(|e| e.to_compile_error())?;
        let mut args = Args::default();
        for meta in metas {
            let name = meta.path().get_ident().map(|i| i.unraw().to_string()).unwrap_or_default();
            let span = meta.span();
            let twice = || err(span, format!("`{name}` set multiple times."));
            let nv = match &meta {
                syn::Meta::Path(p) if p.is_ident("model") => {
                    if args.model {
                        return Err(twice());
                    }
                    args.model = true;
                    continue;
                }
                syn::Meta::NameValue(nv) => nv,
                syn::Meta::Path(p) => {
                    let msg = match name.as_str() {
                        "flavor" | "worker_threads" | "start_paused" | "crate" | "unhandled_panic" | "name" => {
                            format!("The `{name}` attribute requires an argument.")
                        }
                        "multi_thread" => {
                            "Set the runtime flavor with #[racer::test(flavor = \"multi_thread\")].".into()
                        }
                        "current_thread" => {
                            "Set the runtime flavor with #[racer::test(flavor = \"current_thread\")].".into()
                        }
                        _ => format!("Unknown attribute {} is specified; {EXPECTED}.", p.to_token_stream()),
                    };
                    return Err(err(p.span(), msg));
                }
                syn::Meta::List(l) => {
                    return Err(err(
                        l.span(),
                        format!("Unknown attribute {} is specified; {EXPECTED}.", l.path.to_token_stream()),
                    ))
                }
            };
            let value = &nv.value;
            match name.as_str() {
                "flavor" => {
                    if args.flavor.is_some() {
                        return Err(twice());
                    }
                    let s = lit_str(value, "flavor")?;
                    let flavor = match s.value().as_str() {
                        "current_thread" => Flavor::CurrentThread,
                        "multi_thread" => Flavor::MultiThread,
                        "local" => Flavor::Local,
                        "single_thread" => {
                            return Err(err(s.span(), "The single threaded runtime flavor is called `current_thread`."))
                        }
                        other => {
                            return Err(err(
                                s.span(),
                                format!(
                                    "No such runtime flavor `{other}`. The runtime flavors are `current_thread`, \
                                     `local`, and `multi_thread`."
                                ),
                            ))
                        }
                    };
                    args.flavor = Some((flavor, s.span()));
                }
                "worker_threads" => {
                    if args.worker_threads.is_some() {
                        return Err(twice());
                    }
                    if let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) = value {
                        if n.base10_parse::<usize>().ok() == Some(0) {
                            return Err(err(n.span(), "`worker_threads` may not be 0."));
                        }
                    }
                    args.worker_threads = Some(value.clone());
                }
                "start_paused" => {
                    if args.start_paused.is_some() {
                        return Err(twice());
                    }
                    args.start_paused = Some(value.clone());
                }
                "unhandled_panic" => {
                    if args.unhandled_panic.is_some() {
                        return Err(twice());
                    }
                    let s = lit_str(value, "unhandled_panic")?;
                    let variant = match s.value().as_str() {
                        "ignore" => "Ignore",
                        "shutdown_runtime" => "ShutdownRuntime",
                        other => {
                            return Err(err(
                                s.span(),
                                format!(
                                    "No such unhandled panic behavior `{other}`. The unhandled panic behaviors are \
                                     `ignore` and `shutdown_runtime`."
                                ),
                            ))
                        }
                    };
                    args.unhandled_panic = Some((syn::Ident::new(variant, s.span()), s.span()));
                }
                "crate" => {
                    if args.crate_path.is_some() {
                        return Err(twice());
                    }
                    let s = lit_str(value, "crate")?;
                    let path = s.parse::<syn::Path>().map_err(|_| {
                        err(s.span(), format!("Failed to parse value of `crate` as path: \"{}\"", s.value()))
                    })?;
                    args.crate_path = Some(path);
                }
                "name" => {
                    if args.name.is_some() {
                        return Err(twice());
                    }
                    args.name = Some(lit_str(value, "name")?);
                }
                "core_threads" => return Err(err(span, "Attribute `core_threads` is renamed to `worker_threads`")),
                _ => {
                    return Err(err(
                        span,
                        format!("Unknown attribute {} is specified; {EXPECTED}.", nv.path.to_token_stream()),
                    ))
                }
            }
        }
        Ok(args)
    }

    /// The first of the runtime's arguments given, if any.
    fn runtime_arg(&self) -> Option<Span> {
        (self.flavor.map(|f| f.1))
            .or_else(|| self.worker_threads.as_ref().map(|e| e.span()))
            .or_else(|| self.start_paused.as_ref().map(|e| e.span()))
            .or_else(|| self.unhandled_panic.as_ref().map(|u| u.1))
            .or_else(|| self.crate_path.as_ref().map(|p| p.span()))
            .or_else(|| self.name.as_ref().map(|n| n.span()))
    }

    /// The runtime's arguments, given to a function that is not async.
    fn no_runtime(&self) -> Result<(), TokenStream2> {
        match self.runtime_arg() {
            Some(span) => Err(err(
                span,
                "`flavor`, `worker_threads`, `start_paused`, `unhandled_panic`, `crate` and `name` are for an async \
                 fn test (tokio's runtime)",
            )),
            None => Ok(()),
        }
    }
}

/// An `async fn` test made a synchronous one whose body runs on a tokio runtime built as
/// `#[tokio::test]` builds it (through `::racer::tokio`, so the user's crate needs racer's
/// feature `tokio` and no tokio of its own). Under `race-detect` the runtime is built and
/// run inside the test's `racer::check`, so every task it runs is in the check.
///
/// With `unhandled_panic`, also the items to put beside the test: a function that sets it on
/// the builder, outside the test so that a build without `--test` (a compile-fail test) shows
/// tokio's error too when tokio has no `UnhandledPanic` (without `--cfg tokio_unstable`).
fn on_runtime(mut func: ItemFn, args: &Args) -> Result<(ItemFn, TokenStream2), TokenStream2> {
    let asyncness = func.sig.asyncness.take();
    if args.model {
        return in_model(func, args);
    }
    let flavor = args.flavor.map_or(Flavor::CurrentThread, |f| f.0);
    // tokio-macros 2.7's checks, with its messages.
    if let (Flavor::CurrentThread | Flavor::Local, Some(w)) = (flavor, &args.worker_threads) {
        return Err(err(
            w.span(),
            "The `worker_threads` option requires the `multi_thread` runtime flavor. Use \
             `#[racer::test(flavor = \"multi_thread\")]`",
        ));
    }
    if let (Flavor::MultiThread, Some(p)) = (flavor, &args.start_paused) {
        return Err(err(
            p.span(),
            "The `start_paused` option requires the `current_thread` runtime flavor. Use \
             `#[racer::test(flavor = \"current_thread\")]`",
        ));
    }
    if let (Flavor::MultiThread, Some((_, span))) = (flavor, &args.unhandled_panic) {
        return Err(err(
            *span,
            "The `unhandled_panic` option requires the `current_thread` runtime flavor. Use \
             `#[racer::test(flavor = \"current_thread\")]`",
        ));
    }
    if !cfg!(feature = "tokio") {
        return Err(syn::Error::new_spanned(
            asyncness,
            "#[racer::test] on an async fn runs it on tokio's runtime: enable racer's feature `tokio` \
             (racer = { ..., features = [\"tokio\"] })",
        )
        .to_compile_error());
    }
    let krate = match &args.crate_path {
        Some(path) => path.to_token_stream(),
        None => quote! { ::racer::tokio },
    };
    let mut builder = match flavor {
        Flavor::MultiThread => quote! { #krate::runtime::Builder::new_multi_thread() },
        Flavor::CurrentThread | Flavor::Local => quote! { #krate::runtime::Builder::new_current_thread() },
    };
    let mut beside = TokenStream2::new();
    if let Some((variant, _)) = &args.unhandled_panic {
        // `runtime::UnhandledPanic` and `Builder::unhandled_panic` exist only under
        // `--cfg tokio_unstable`: elsewhere this is tokio's own error, as with #[tokio::test].
        let set = syn::Ident::new(&format!("__racer_unhandled_panic_{}", func.sig.ident.unraw()), Span::call_site());
        let span = variant.span();
        beside = quote_spanned! {span=>
            #[doc(hidden)]
            #[allow(dead_code, non_snake_case)]
            fn #set(builder: &mut #krate::runtime::Builder) -> &mut #krate::runtime::Builder {
                builder.unhandled_panic(#krate::runtime::UnhandledPanic::#variant)
            }
        };
        builder = quote! { #set(&mut #builder) };
    }
    if let Some(n) = &args.worker_threads {
        builder = quote! { #builder.worker_threads(#n) };
    }
    if let Some(paused) = &args.start_paused {
        builder = quote! { #builder.start_paused(#paused) };
    }
    if let Some(name) = &args.name {
        builder = quote! { #builder.name(#name) };
    }
    // A `LocalRuntime` (tokio 1.54 builds it on stable), as tokio-macros builds it.
    let build = match flavor {
        Flavor::Local => quote! { build_local(::core::default::Default::default()) },
        _ => quote! { build() },
    };
    let block = &func.block;
    let body = quote! {{
        let body = async move #block;
        #builder.enable_all().#build.expect("racer: failed to build the test's tokio runtime").block_on(body)
    }};
    func.block = Box::new(syn::parse2(body).map_err(|e| e.to_compile_error())?);
    Ok((func, beside))
}

/// `#[racer::test(model)]` on an `async fn`: with `race-detect`, each iteration runs the body
/// on `racer::model::block_on`, where every task spawned through `racer::tokio` is a model
/// thread of its own (no runtime runs); without it, once, on a current-thread runtime as
/// `#[tokio::test]` runs it (with racer's feature `tokio`; else on `block_on`).
fn in_model(mut func: ItemFn, args: &Args) -> Result<(ItemFn, TokenStream2), TokenStream2> {
    if let Some(span) = args.runtime_arg() {
        return Err(err(
            span,
            "#[racer::test(model)] on an async fn runs no tokio runtime (each task is a model thread of its own), \
             so it takes none of the runtime's arguments",
        ));
    }
    let block = &func.block;
    let body = if cfg!(feature = "race-detect") || !cfg!(feature = "tokio") {
        quote! {{ ::racer::model::block_on(async move #block) }}
    } else {
        quote! {{
            let body = async move #block;
            ::racer::tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("racer: failed to build the test's tokio runtime")
                .block_on(body)
        }}
    };
    func.block = Box::new(syn::parse2(body).map_err(|e| e.to_compile_error())?);
    Ok((func, TokenStream2::new()))
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
    // The test's path as libtest names it (`module::name`, from the crate's root): the
    // crate's name, first in `module_path!()`, is left out by `failure_in_test`.
    let name = {
        let name = sig.ident.unraw().to_string();
        quote! { ::core::concat!(::core::module_path!(), "::", #name) }
    };
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
