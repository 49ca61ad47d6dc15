//! The unwind rule of a code address, from the `.eh_frame` CFI of the object that holds it
//! (read in place with `gimli`): what `racer_core::cfi_walk` caches and walks with.

use std::sync::LazyLock;

use gimli::{
    BaseAddresses, CfaRule, EhFrame, EhFrameHdr, EndianSlice, NativeEndian, ParsedEhFrameHdr, RegisterRule,
    UnwindContext, UnwindSection, X86_64,
};
use racer_core::cfi_walk::{Rule, UNKNOWN};

type Section = EndianSlice<'static, NativeEndian>;

/// One loaded object's unwind tables, read in place from its mapped `.eh_frame_hdr` and
/// `.eh_frame`.
struct Module {
    /// The object's executable segments, `[start, end)` in the process's addresses.
    text: Vec<(usize, usize)>,
    hdr: ParsedEhFrameHdr<Section>,
    eh_frame: EhFrame<Section>,
    bases: BaseAddresses,
}

/// Every object loaded when the first stack is walked. Code loaded later has no rule and makes
/// the walk give up, so the caller unwinds it the slow way.
static MODULES: LazyLock<Vec<Module>> = LazyLock::new(loaded_modules);

fn loaded_modules() -> Vec<Module> {
    let mut modules: Vec<Module> = Vec::new();
    // SAFETY: the callback only reads the program headers it is handed, and `data` is the
    // `Vec` above, borrowed for the duration of the call.
    unsafe {
        libc::dl_iterate_phdr(Some(add_module), &mut modules as *mut Vec<Module> as *mut libc::c_void);
    }
    modules
}

unsafe extern "C" fn add_module(
    info: *mut libc::dl_phdr_info,
    _size: libc::size_t,
    data: *mut libc::c_void,
) -> libc::c_int {
    // SAFETY: `dl_iterate_phdr` hands a valid `info` whose `dlpi_phdr` has `dlpi_phnum`
    // entries, and `data` is the `Vec` of `loaded_modules`.
    let (info, modules) = unsafe { (&*info, &mut *(data as *mut Vec<Module>)) };
    let base = info.dlpi_addr as usize;
    let phdrs = if info.dlpi_phdr.is_null() {
        &[][..]
    } else {
        // SAFETY: see above.
        unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize) }
    };
    let loads: Vec<(usize, usize, bool)> = phdrs
        .iter()
        .filter(|p| p.p_type == libc::PT_LOAD)
        .map(|p| (base + p.p_vaddr as usize, base + (p.p_vaddr + p.p_memsz) as usize, p.p_flags & libc::PF_X != 0))
        .collect();
    let Some(hdr) = phdrs.iter().find(|p| p.p_type == libc::PT_GNU_EH_FRAME) else { return 0 };
    let hdr_start = base + hdr.p_vaddr as usize;
    // SAFETY: the segment is mapped for as long as the object is loaded; objects loaded at
    // start-up (all that are listed here before any `dlclose`) stay loaded.
    let hdr_bytes: &'static [u8] = unsafe { std::slice::from_raw_parts(hdr_start as *const u8, hdr.p_memsz as usize) };
    let text: Vec<(usize, usize)> = loads.iter().filter(|l| l.2).map(|l| (l.0, l.1)).collect();
    let bases =
        BaseAddresses::default().set_eh_frame_hdr(hdr_start as u64).set_text(text.first().map_or(0, |t| t.0) as u64);
    let Ok(parsed) = EhFrameHdr::new(hdr_bytes, NativeEndian).parse(&bases, 8) else { return 0 };
    let Ok(eh_frame_start) = parsed.eh_frame_ptr().direct() else { return 0 };
    let eh_frame_start = eh_frame_start as usize;
    // `.eh_frame` has no length of its own here: it runs at most to the end of its segment.
    let Some(&(_, segment_end, _)) = loads.iter().find(|l| l.0 <= eh_frame_start && eh_frame_start < l.1) else {
        return 0;
    };
    // SAFETY: inside a mapped segment of the object, as above.
    let eh_frame_bytes: &'static [u8] =
        unsafe { std::slice::from_raw_parts(eh_frame_start as *const u8, segment_end - eh_frame_start) };
    let mut eh_frame = EhFrame::new(eh_frame_bytes, NativeEndian);
    eh_frame.set_address_size(8);
    let bases = bases.set_eh_frame(eh_frame_start as u64);
    modules.push(Module { text, hdr: parsed, eh_frame, bases });
    0
}

/// Interprets the CFI of the code at `address` (a return address minus one, or an exact
/// instruction address).
pub fn make_rule(address: usize) -> Rule {
    let Some(module) = MODULES.iter().find(|m| m.text.iter().any(|&(s, e)| s <= address && address < e)) else {
        return Rule::UNKNOWN;
    };
    let Some(table) = module.hdr.table() else { return Rule::UNKNOWN };
    let mut ctx = UnwindContext::new();
    let row = table.unwind_info_for_address(
        &module.eh_frame,
        &module.bases,
        &mut ctx,
        address as u64,
        EhFrame::cie_from_offset,
    );
    let Ok(row) = row else { return Rule::UNKNOWN };
    let (cfa_from_bp, cfa_offset) = match *row.cfa() {
        CfaRule::RegisterAndOffset { register, offset } if register == X86_64::RSP => (false, offset),
        CfaRule::RegisterAndOffset { register, offset } if register == X86_64::RBP => (true, offset),
        _ => return Rule::UNKNOWN,
    };
    let ra_offset = match row.register(X86_64::RA) {
        Some(RegisterRule::Undefined) => return Rule::OUTERMOST,
        Some(RegisterRule::Offset(o)) => o,
        _ => return Rule::UNKNOWN,
    };
    let bp_offset = match row.register(X86_64::RBP) {
        None | Some(RegisterRule::SameValue) | Some(RegisterRule::Undefined) => 0,
        Some(RegisterRule::Offset(o)) if o != 0 => o,
        _ => return Rule::UNKNOWN,
    };
    match (i32::try_from(cfa_offset), i16::try_from(bp_offset), i8::try_from(ra_offset)) {
        (Ok(cfa_offset), Ok(bp_offset), Ok(ra_offset)) if ra_offset != 0 && ra_offset != UNKNOWN => {
            Rule { cfa_offset, bp_offset, ra_offset, cfa_from_bp }
        }
        _ => Rule::UNKNOWN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_with_unwind_tables_are_found() {
        let here = modules_with_unwind_tables_are_found as *const () as usize;
        assert!(
            MODULES.iter().any(|m| m.text.iter().any(|&(s, e)| s <= here && here < e)),
            "this test's own code is in a module"
        );
        assert_ne!(make_rule(here + 8), Rule::UNKNOWN, "this function has a rule");
    }
}
