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
/// The function must be a plain, synchronous, non-generic function without
/// arguments; the attribute takes no argument but `model`. Every other attribute
/// (`#[should_panic]`, `#[ignore]`, doc comments, `#[cfg]`, ...) is kept, in order.
#[proc_macro_attribute]
pub fn test(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(tokens) => tokens.into(),
    }
}

fn expand(attr: TokenStream2, item: TokenStream2) -> Result<TokenStream2, TokenStream2> {
    let model = match syn::parse2::<Option<syn::Ident>>(attr.clone()) {
        Ok(None) => false,
        Ok(Some(ident)) if ident == "model" => true,
        _ => {
            return Err(
                syn::Error::new_spanned(&attr, "#[racer::test] takes no arguments but `model`").to_compile_error()
            )
        }
    };

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
    if let Some(asyncness) = &sig.asyncness {
        return Err(syn::Error::new_spanned(
            asyncness,
            "#[racer::test] does not support async fn; make the test synchronous and \
             block on the future inside it (for example with an executor's `block_on`)",
        ));
    }
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
            if !#report.deadlocks().is_empty() {
                ::std::panic!(
                    "racer: {} data race(s) and {} deadlock(s) found in test `{}`:\n{}",
                    #report.races().len(),
                    #report.deadlocks().len(),
                    #name,
                    #report,
                );
            }
            if !#report.is_empty() {
                ::std::panic!(
                    "racer: {} data race(s) found in test `{}`:\n{}",
                    #report.len(),
                    #name,
                    #report,
                );
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
