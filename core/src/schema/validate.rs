//! The validator: applies a schema to a value, recursively, within a depth and a step budget.

use core::cell::{Cell, Ref, RefCell};
use core::cmp::Ordering;

use crate::json::{Array, Items, JsonStr, Kind, Number, Value};

use super::Options;
use super::keywords::{Bound, Keyword, Keywords, ObjectKeywords, schema_value};
use super::lookup::{Declarations, MemberCursor, MemberWalk, find_noted};
use super::noted::NotedMembers;
use super::plan::{self, Plan};
use super::pointer::{RefError, resolve};
use super::types::TypeSet;
use super::violation::{Reason, Violation};
use crate::json::{Decimal, compare_literals, small_integer};

/// One validation run: the roots, and what is left of the budget.
pub(crate) struct Validator<'a, 'p> {
    /// The root schema, which local `$ref`s resolve against.
    schema_root: Value<'a>,
    /// The root of the document paths are reported in (the instance, or the schema when
    /// checking a schema).
    report_root: Value<'a>,
    max_depth: u16,
    steps_left: u32,
    assert_formats: bool,
    /// The keywords of some schema objects, read before (from `schema_root`'s text).
    plan: Option<&'p Plan>,
    /// The members of an instance object, noted while it was scanned.
    noted: Option<&'p NotedMembers<'a>>,
}

/// The keywords of the schema objects read last while validating the items of an array,
/// with where each object starts and its length: the `items` schema and the schemas of its
/// properties, applied to every item, are read once. Shared by reference below the
/// outermost such array (which alone pays its stack); an entry being applied is borrowed,
/// and never replaced while it is.
pub(crate) struct Recent<'a> {
    /// Where each slot's schema object starts and its length (0: the slot is empty).
    at: [Cell<(usize, usize)>; RECENT],
    slots: [RefCell<Keywords<'a>>; RECENT],
    /// The slot to try replacing next.
    next: Cell<usize>,
}

/// How many schema objects' keywords [`Recent`] keeps (each costs the size of
/// [`Keywords`], about 500 bytes on a 64-bit target): enough for an `items` object schema,
/// the schemas of four properties and one nested `items`.
const RECENT: usize = 6;

impl<'a> Recent<'a> {
    fn new() -> Self {
        Recent {
            at: [const { Cell::new((0, 0)) }; RECENT],
            slots: core::array::from_fn(|_| RefCell::new(Keywords::default())),
            next: Cell::new(0),
        }
    }

    /// The keywords of the schema object at `start`, `len` long, if they are at hand.
    fn find(&self, object: (usize, usize)) -> Option<Ref<'_, Keywords<'a>>> {
        let slot = self.at.iter().position(|at| at.get() == object)?;
        self.slots.get(slot)?.try_borrow().ok()
    }

    /// Keeps `keywords` of the schema object at `start`, `len` long, in place of the oldest
    /// entry not being applied (or nowhere, if every one is).
    fn keep(&self, object: (usize, usize), keywords: &Keywords<'a>) {
        for _ in 0..RECENT {
            let slot = self.next.get() % RECENT;
            self.next.set(slot + 1);
            if let (Some(Ok(mut kept)), Some(at)) = (
                self.slots.get(slot).map(RefCell::try_borrow_mut),
                self.at.get(slot),
            ) {
                *kept = *keywords;
                at.set(object);
                return;
            }
        }
    }
}

type Outcome<'a> = Result<(), Violation<'a>>;

/// A step of the budget is one schema application or comparison, plus one for every this
/// many bytes of JSON scanned (views are lazy: looking a key up rescans the text).
const BYTES_PER_STEP: usize = 64;

impl<'a, 'p> Validator<'a, 'p> {
    pub(crate) fn new(schema_root: Value<'a>, report_root: Value<'a>, options: &Options) -> Self {
        Validator {
            schema_root,
            report_root,
            max_depth: options.max_depth,
            steps_left: options.max_steps,
            assert_formats: options.assert_formats,
            plan: None,
            noted: None,
        }
    }

    /// The same validator, taking the keywords `plan` covers from it instead of reading them.
    pub(crate) fn with_plan(self, plan: Option<&'p Plan>) -> Self {
        Validator { plan, ..self }
    }

    /// The same validator, taking the members of the object `noted` describes from it
    /// instead of walking its text.
    pub(crate) fn with_noted(self, noted: Option<&'p NotedMembers<'a>>) -> Self {
        Validator { noted, ..self }
    }

    /// What is left of the budget (a test compares planned and unplanned runs by it).
    #[cfg(test)]
    pub(crate) fn steps_left(&self) -> u32 {
        self.steps_left
    }

    fn fail(&self, reason: Reason<'a>, at: Value<'a>) -> Violation<'a> {
        Violation::new(reason, self.report_root, at)
    }

    /// Checks the depth, then spends a step and the bytes about to be scanned.
    fn enter(&mut self, depth: u16, at: Value<'a>, bytes: usize) -> Outcome<'a> {
        if depth > self.max_depth {
            return Err(self.fail(Reason::TooDeep, at));
        }
        self.spend(bytes, at)
    }

    /// Spends one step plus one per [`BYTES_PER_STEP`] bytes scanned.
    fn spend(&mut self, bytes: usize, at: Value<'a>) -> Outcome<'a> {
        let cost = u32::try_from(bytes / BYTES_PER_STEP)
            .unwrap_or(u32::MAX)
            .saturating_add(1);
        match self.steps_left.checked_sub(cost) {
            Some(left) => {
                self.steps_left = left;
                Ok(())
            }
            None => {
                self.steps_left = 0;
                Err(self.fail(Reason::TooComplex, at))
            }
        }
    }

    /// The member named `key` of the object `members` walks (searching on from where it
    /// last stopped), paying for the scan.
    fn member_at(
        &mut self,
        members: &mut MemberCursor<'a>,
        key: JsonStr<'_>,
        at: Value<'a>,
    ) -> Result<Option<Value<'a>>, Violation<'a>> {
        let (found, scanned) = members.find(key);
        self.spend(scanned, at)?;
        Ok(found)
    }

    /// Validates `inst` against `schema` (`depth` schemas deep).
    pub(crate) fn node(
        &mut self,
        recent: Option<&Recent<'a>>,
        schema: Value<'a>,
        inst: Value<'a>,
        depth: u16,
    ) -> Outcome<'a> {
        self.enter(depth, inst, schema.raw().len())?;
        match schema.as_bool() {
            Some(true) => return Ok(()),
            Some(false) => return Err(self.fail(Reason::NotAllowed, inst)),
            None => {}
        }
        let Some(object) = schema.as_object() else {
            return Err(self.fail(Reason::BadSchema { keyword: "" }, inst));
        };
        // Reading keywords is a pure function of the schema text: recalled ones are the same.
        let raw = object.as_value().raw();
        let at = (raw.as_ptr() as usize, raw.len());
        if let Some(k) = recent.and_then(|r| r.find(at)) {
            return self.apply(recent, &k, inst, depth);
        }
        // Without the feature no server keeps plans: firmware links no replay code.
        if cfg!(any(feature = "schema-plans", test)) {
            if self.passes_planned(raw, inst) {
                return Ok(());
            }
            if let Some(outcome) = self.object_planned(recent, raw, inst, depth) {
                return outcome;
            }
        }
        let mut k = Keywords::default();
        let planned = cfg!(any(feature = "schema-plans", test))
            && self
                .plan
                .is_some_and(|plan| plan.keywords(self.schema_root.raw(), raw, &mut k));
        if !planned {
            k.read(object)
                .map_err(|keyword| self.fail(Reason::BadSchema { keyword }, inst))?;
        }
        if let Some(recent) = recent {
            recent.keep(at, &k);
        }
        self.apply(recent, &k, inst, depth)
    }

    /// Whether the scalar `inst` satisfies the schema object `object`, decided from the words
    /// the plan holds for it without reading them into [`Keywords`]: the common case of an
    /// argument checked against its property's `type`, lengths and bounds, and passing. Only
    /// a pass is decided here, at the same cost in budget as applying the keywords; anything
    /// else (a keyword not checked here, a failure, whose violation must be the one applying
    /// finds) is `false`, with the budget as it was, and the keywords are then applied.
    fn passes_planned(&mut self, object: &'a [u8], inst: Value<'a>) -> bool {
        // Asserted formats are not decided here (plans serve tool arguments, which annotate).
        let Some(plan) = self.plan.filter(|_| !self.assert_formats) else {
            return false;
        };
        if matches!(inst.kind(), Kind::Array | Kind::Object) {
            return false;
        }
        let text = self.schema_root.raw();
        let Some((_, entries)) = plan.entries(text, object) else {
            return false;
        };
        let budget = self.steps_left;
        let mut length = None;
        // A small integer argument (most are) is read once for all its bounds.
        let small = inst.as_number().and_then(|n| small_integer(n.bytes()));
        for (keyword, word) in entries {
            let Some(keyword) = keyword else {
                return false;
            };
            let passes = match keyword {
                Keyword::Type => u8::try_from(word)
                    .ok()
                    .and_then(TypeSet::from_bits)
                    .is_some_and(|types| types.accepts(inst)),
                Keyword::MinLength | Keyword::MaxLength => match inst.as_str() {
                    None => true,
                    Some(text) => {
                        // Counted, and paid for, once, as `string` does.
                        if length.is_none() {
                            if self.spend(inst.raw().len(), inst).is_err() {
                                self.steps_left = budget;
                                return false;
                            }
                            length = Some(text.char_count() as u64);
                        }
                        let length = length.unwrap_or_default();
                        if keyword == Keyword::MinLength {
                            length >= u64::from(word)
                        } else {
                            length <= u64::from(word)
                        }
                    }
                },
                Keyword::Minimum
                | Keyword::Maximum
                | Keyword::ExclusiveMinimum
                | Keyword::ExclusiveMaximum => match inst.as_number() {
                    None => true,
                    Some(number) => {
                        // A draft 4 boolean `exclusive…` is not a number: not decided here.
                        let order = plan::value(text, word)
                            .and_then(|limit| limit.as_number())
                            .and_then(|limit| match (small, small_integer(limit.bytes())) {
                                (Some(a), Some(b)) => Some(a.cmp(&b)),
                                _ => compare_literals(number.bytes(), limit.bytes()),
                            });
                        order.is_some_and(|order| match keyword {
                            Keyword::Minimum => order != Ordering::Less,
                            Keyword::Maximum => order != Ordering::Greater,
                            Keyword::ExclusiveMinimum => order == Ordering::Greater,
                            _ => order == Ordering::Less,
                        })
                    }
                },
                // What applies only to arrays and objects says nothing about a scalar, and
                // an annotation nothing at all.
                Keyword::MinItems
                | Keyword::Format
                | Keyword::MaxItems
                | Keyword::UniqueItems
                | Keyword::MinProperties
                | Keyword::MaxProperties
                | Keyword::Required
                | Keyword::Properties
                | Keyword::AdditionalProperties
                | Keyword::Items
                | Keyword::PrefixItems
                | Keyword::Defs
                | Keyword::Definitions => true,
                // Enum, const, the applicators and `$ref` (and any keyword added later) are
                // not decided here: the keywords are then applied in full.
                _ => false,
            };
            if !passes {
                self.steps_left = budget;
                return false;
            }
        }
        true
    }

    /// Applies the schema object `object` to the object `inst` from the words the plan holds
    /// for it, without filling [`Keywords`]: a tool's root schema (`type`, `properties`,
    /// `required`), applied on every call. `None`, having spent nothing, when the plan does
    /// not cover `object`, `inst` is not an object, or a keyword says more than `type` and
    /// what [`Validator::object`] checks; the keywords are then read and applied.
    fn object_planned(
        &mut self,
        recent: Option<&Recent<'a>>,
        object: &'a [u8],
        inst: Value<'a>,
        depth: u16,
    ) -> Option<Outcome<'a>> {
        let plan = self.plan?;
        if inst.kind() != Kind::Object {
            return None;
        }
        let text = self.schema_root.raw();
        let (index, entries) = plan.entries(text, object)?;
        let mut types = None;
        let mut k = ObjectKeywords::default();
        for (keyword, word) in entries {
            match keyword? {
                Keyword::Type => {
                    types = Some(u8::try_from(word).ok().and_then(TypeSet::from_bits)?)
                }
                Keyword::MinProperties => k.min_properties = Some(u64::from(word)),
                Keyword::MaxProperties => k.max_properties = Some(u64::from(word)),
                Keyword::Required => k.required = Some(plan::value(text, word)?.as_array()?),
                Keyword::Properties => k.properties = Some(plan::value(text, word)?.as_object()?),
                Keyword::AdditionalProperties => {
                    k.additional_properties = Some(plan::value(text, word)?);
                }
                // What applies only to numbers, strings and arrays says nothing about an object.
                Keyword::Minimum
                | Keyword::Maximum
                | Keyword::ExclusiveMinimum
                | Keyword::ExclusiveMaximum
                | Keyword::MinLength
                | Keyword::MaxLength
                | Keyword::Format
                | Keyword::MinItems
                | Keyword::MaxItems
                | Keyword::UniqueItems
                | Keyword::Items
                | Keyword::PrefixItems
                | Keyword::Defs
                | Keyword::Definitions => {}
                // As in `passes_planned`: the rest is applied in full.
                _ => return None,
            }
        }
        if index == 0 && k.properties.is_some() {
            k.property_table = plan.property_table();
        }
        // In the order `apply` checks them: the type, then what `object` checks.
        if let Some(expected) = types.filter(|types| !types.accepts(inst)) {
            return Some(Err(self.fail(Reason::Type { expected }, inst)));
        }
        Some(self.object(recent, &k, inst, depth.saturating_add(1)))
    }

    /// Applies the keywords of a schema object to `inst`.
    fn apply(
        &mut self,
        recent: Option<&Recent<'a>>,
        k: &Keywords<'a>,
        inst: Value<'a>,
        depth: u16,
    ) -> Outcome<'a> {
        let next = depth.saturating_add(1);

        if let Some(expected) = k.types {
            if !expected.accepts(inst) {
                return Err(self.fail(Reason::Type { expected }, inst));
            }
        }
        if let Some(allowed) = k.enumeration {
            self.spend(allowed.as_value().raw().len(), inst)?;
            let mut found = false;
            for candidate in allowed {
                if self.equal(candidate, inst, next)? {
                    found = true;
                    break;
                }
            }
            if !found {
                return Err(self.fail(Reason::Enum { allowed }, inst));
            }
        }
        if let Some(expected) = k.constant {
            if !self.equal(expected, inst, next)? {
                return Err(self.fail(Reason::Const { expected }, inst));
            }
        }
        match inst.kind() {
            Kind::Number => self.number(k, inst)?,
            Kind::String => self.string(k, inst)?,
            Kind::Array => self.array(recent, k, inst, next)?,
            Kind::Object => self.object(recent, &k.object, inst, next)?,
            Kind::Null | Kind::Bool => {}
        }
        if let Some(reference) = k.reference {
            let (target, scanned) = resolve(self.schema_root, reference).map_err(|e| {
                let reason = match e {
                    RefError::Unsupported => Reason::UnsupportedRef { reference },
                    RefError::Unresolved => Reason::UnresolvedRef { reference },
                };
                self.fail(reason, inst)
            })?;
            self.spend(scanned, inst)?;
            self.node(recent, target, inst, next)?;
        }
        if let Some(all) = k.all_of {
            for sub in all {
                self.node(recent, sub, inst, next)?;
            }
        }
        if let Some(any) = k.any_of {
            if self.matches(recent, any, inst, next, 1)? == 0 {
                return Err(self.fail(Reason::AnyOf, inst));
            }
        }
        if let Some(one) = k.one_of {
            match self.matches(recent, one, inst, next, 2)? {
                0 => return Err(self.fail(Reason::OneOfNone, inst)),
                1 => {}
                _ => return Err(self.fail(Reason::OneOfSeveral, inst)),
            }
        }
        if let Some(not) = k.not {
            if self.matches_one(recent, not, inst, next)? {
                return Err(self.fail(Reason::Not, inst));
            }
        }
        Ok(())
    }

    /// Whether `inst` satisfies `schema`; problems of the schema still abort the whole run.
    fn matches_one(
        &mut self,
        recent: Option<&Recent<'a>>,
        schema: Value<'a>,
        inst: Value<'a>,
        depth: u16,
    ) -> Result<bool, Violation<'a>> {
        match self.node(recent, schema, inst, depth) {
            Ok(()) => Ok(true),
            Err(v) if v.is_schema_error() => Err(v),
            Err(_) => Ok(false),
        }
    }

    /// How many of `schemas` `inst` satisfies, counting no further than `stop_at`.
    fn matches(
        &mut self,
        recent: Option<&Recent<'a>>,
        schemas: Array<'a>,
        inst: Value<'a>,
        depth: u16,
        stop_at: usize,
    ) -> Result<usize, Violation<'a>> {
        let mut count = 0;
        for sub in schemas {
            if self.matches_one(recent, sub, inst, depth)? {
                count += 1;
                if count >= stop_at {
                    break;
                }
            }
        }
        Ok(count)
    }

    fn number(&mut self, k: &Keywords<'a>, inst: Value<'a>) -> Outcome<'a> {
        let Some(value) = inst.as_number() else {
            return Ok(());
        };
        let check = |limit: Number<'a>, exclusive: bool, lower: bool| -> Option<Reason<'a>> {
            let order = compare_literals(value.bytes(), limit.bytes())?;
            let ok = match (lower, exclusive) {
                (true, false) => order != Ordering::Less,
                (true, true) => order == Ordering::Greater,
                (false, false) => order != Ordering::Greater,
                (false, true) => order == Ordering::Less,
            };
            (!ok).then_some(if lower {
                Reason::Minimum { limit, exclusive }
            } else {
                Reason::Maximum { limit, exclusive }
            })
        };
        let bounds = [
            k.minimum
                .map(|Bound { limit, exclusive }| (limit, exclusive, true)),
            k.exclusive_minimum.map(|limit| (limit, true, true)),
            k.maximum
                .map(|Bound { limit, exclusive }| (limit, exclusive, false)),
            k.exclusive_maximum.map(|limit| (limit, true, false)),
        ];
        for (limit, exclusive, lower) in bounds.into_iter().flatten() {
            if let Some(reason) = check(limit, exclusive, lower) {
                return Err(self.fail(reason, inst));
            }
        }
        Ok(())
    }

    fn string(&mut self, k: &Keywords<'a>, inst: Value<'a>) -> Outcome<'a> {
        let format = if self.assert_formats { k.format } else { None };
        if k.min_length.is_none() && k.max_length.is_none() && format.is_none() {
            return Ok(());
        }
        let Some(text) = inst.as_str() else {
            return Ok(());
        };
        self.spend(inst.raw().len(), inst)?;
        if k.min_length.is_some() || k.max_length.is_some() {
            let length = text.char_count() as u64;
            if let Some(limit) = k.min_length.filter(|&limit| length < limit) {
                return Err(self.fail(Reason::MinLength { limit }, inst));
            }
            if let Some(limit) = k.max_length.filter(|&limit| length > limit) {
                return Err(self.fail(Reason::MaxLength { limit }, inst));
            }
        }
        match format {
            Some(format) if !format.check(text) => Err(self.fail(Reason::Format { format }, inst)),
            _ => Ok(()),
        }
    }

    fn array(
        &mut self,
        recent: Option<&Recent<'a>>,
        k: &Keywords<'a>,
        inst: Value<'a>,
        next: u16,
    ) -> Outcome<'a> {
        let Some(array) = inst.as_array() else {
            return Ok(());
        };
        // Counting and iterating each scan the array once.
        self.spend(inst.raw().len().saturating_mul(2), inst)?;
        if k.min_items.is_some() || k.max_items.is_some() {
            let len = array.len() as u64;
            if let Some(limit) = k.min_items.filter(|&limit| len < limit) {
                return Err(self.fail(Reason::MinItems { limit }, inst));
            }
            if let Some(limit) = k.max_items.filter(|&limit| len > limit) {
                return Err(self.fail(Reason::MaxItems { limit }, inst));
            }
        }
        // Positional schemas: `prefixItems` (2020-12) or an `items` array (older drafts);
        // then the `items` schema, if any, for the rest.
        let (positional, rest) = match k.items.and_then(|items| items.as_array()) {
            Some(tuple) => (Some(tuple.iter()), None),
            None => (k.prefix_items.map(|p| p.iter()), k.items),
        };
        if positional.is_some() || rest.is_some() {
            // An object schema applied to several items: worth keeping keywords at hand.
            let shared =
                rest.is_some_and(|r| r.kind() == Kind::Object) && array.iter().nth(1).is_some();
            match recent {
                None if shared => self.items_remembering(array, positional, rest, next)?,
                _ => self.items(recent, array, positional, rest, next)?,
            }
        }
        if k.unique_items {
            for (i, a) in array.iter().enumerate() {
                for b in array.iter().skip(i + 1) {
                    if self.equal(a, b, next)? {
                        return Err(self.fail(Reason::UniqueItems, b));
                    }
                }
            }
        }
        Ok(())
    }

    /// Applies `positional` schemas, then `rest`, to the items of `array`.
    fn items(
        &mut self,
        recent: Option<&Recent<'a>>,
        array: Array<'a>,
        mut positional: Option<Items<'a>>,
        rest: Option<Value<'a>>,
        next: u16,
    ) -> Outcome<'a> {
        for item in array {
            let schema = positional.as_mut().and_then(Iterator::next).or(rest);
            if let Some(schema) = schema {
                self.node(recent, schema, item, next)?;
            }
        }
        Ok(())
    }

    /// [`Validator::items`] with a [`Recent`] of its own, for everything below. Out of line,
    /// so that only a validation that reaches such an array pays its stack.
    #[inline(never)]
    fn items_remembering(
        &mut self,
        array: Array<'a>,
        positional: Option<Items<'a>>,
        rest: Option<Value<'a>>,
        next: u16,
    ) -> Outcome<'a> {
        let recent = Recent::new();
        self.items(Some(&recent), array, positional, rest, next)
    }

    fn object(
        &mut self,
        recent: Option<&Recent<'a>>,
        k: &ObjectKeywords<'a>,
        inst: Value<'a>,
        next: u16,
    ) -> Outcome<'a> {
        let Some(object) = inst.as_object() else {
            return Ok(());
        };
        // Counting and iterating each scan the object once (charged alike when its members
        // were noted while it was scanned, so the budget does not depend on it).
        self.spend(inst.raw().len().saturating_mul(2), inst)?;
        let noted = self.noted.and_then(|n| n.members_of(inst));
        if k.min_properties.is_some() || k.max_properties.is_some() {
            let len = noted.map_or_else(|| object.len(), <[_]>::len) as u64;
            if let Some(limit) = k.min_properties.filter(|&limit| len < limit) {
                return Err(self.fail(Reason::MinProperties { limit }, inst));
            }
            if let Some(limit) = k.max_properties.filter(|&limit| len > limit) {
                return Err(self.fail(Reason::MaxProperties { limit }, inst));
            }
        }
        if let Some(required) = k.required {
            let mut members = MemberCursor::new(object);
            for name in required.iter().filter_map(|n| n.as_str()) {
                let found = match noted {
                    Some(noted) => {
                        let (found, scanned) = find_noted(inst, noted, name);
                        self.spend(scanned, inst)?;
                        found
                    }
                    None => self.member_at(&mut members, name, inst)?,
                };
                if found.is_none() {
                    return Err(self.fail(Reason::Required { name }, inst));
                }
            }
        }
        if k.properties.is_none() && k.additional_properties.is_none() {
            return Ok(());
        }
        let mut declarations = k
            .properties
            .map(|properties| Declarations::new(properties, k.property_table));
        for (key, value) in MemberWalk::new(object, noted) {
            let declared = match declarations.as_mut() {
                Some(properties) => {
                    let (found, scanned) = properties.find(key);
                    self.spend(scanned, value)?;
                    found
                }
                None => None,
            };
            if let Some(schema) = declared.or(k.additional_properties) {
                self.node(recent, schema, value, next)?;
            }
        }
        Ok(())
    }

    /// JSON equality: objects compared as maps, numbers by numeric value, strings after
    /// unescaping. Costs budget like a schema does, and is bounded by the same depth.
    fn equal(&mut self, a: Value<'a>, b: Value<'a>, depth: u16) -> Result<bool, Violation<'a>> {
        self.enter(depth, b, 0)?;
        let (kind_a, kind_b) = (a.kind(), b.kind());
        if kind_a != kind_b {
            return Ok(false);
        }
        if matches!(kind_a, Kind::String | Kind::Array | Kind::Object) {
            self.spend(a.raw().len().saturating_add(b.raw().len()), b)?;
        }
        let next = depth.saturating_add(1);
        Ok(match kind_a {
            Kind::Null | Kind::Bool => a.raw() == b.raw(),
            Kind::Number => {
                let parsed = |v: Value<'a>| v.as_number().and_then(|n| Decimal::parse(n.bytes()));
                match (parsed(a), parsed(b)) {
                    (Some(x), Some(y)) => x.compare(&y) == Ordering::Equal,
                    _ => a.raw() == b.raw(),
                }
            }
            Kind::String => a.as_str() == b.as_str(),
            Kind::Array => {
                let (Some(x), Some(y)) = (a.as_array(), b.as_array()) else {
                    return Ok(false);
                };
                let (mut xs, mut ys) = (x.iter(), y.iter());
                loop {
                    match (xs.next(), ys.next()) {
                        (None, None) => break true,
                        (Some(p), Some(q)) => {
                            if !self.equal(p, q, next)? {
                                break false;
                            }
                        }
                        _ => break false,
                    }
                }
            }
            Kind::Object => {
                let (Some(x), Some(y)) = (a.as_object(), b.as_object()) else {
                    return Ok(false);
                };
                // Keys are unique (the scanner rejects duplicates), so equal sizes and every
                // member of one found equal in the other make the two equal.
                if x.len() != y.len() {
                    return Ok(false);
                }
                let mut members = MemberCursor::new(y);
                for (key, p) in x {
                    let Some(q) = self.member_at(&mut members, key, b)? else {
                        return Ok(false);
                    };
                    if !self.equal(p, q, next)? {
                        return Ok(false);
                    }
                }
                true
            }
        })
    }

    /// Checks `schema` and everything under it for malformed keywords and `$ref`s that do not
    /// resolve, without any instance.
    pub(crate) fn check(&mut self, schema: Value<'a>, depth: u16) -> Outcome<'a> {
        self.enter(depth, schema, schema.raw().len())?;
        if schema.kind() == Kind::Bool {
            return Ok(());
        }
        let Some(object) = schema.as_object() else {
            return Err(self.fail(Reason::BadSchema { keyword: "" }, schema));
        };
        let mut k = Keywords::default();
        k.read(object).map_err(|keyword| {
            let at = object
                .iter()
                .find(|(key, _)| key.eq_str(keyword))
                .map_or(schema, |(_, v)| v);
            self.fail(Reason::BadSchema { keyword }, at)
        })?;
        let next = depth.saturating_add(1);
        if let Some(reference) = k.reference {
            let at = object.get("$ref").unwrap_or(schema);
            match resolve(self.schema_root, reference) {
                Ok((_, scanned)) => self.spend(scanned, at)?,
                Err(RefError::Unsupported) => {
                    return Err(self.fail(Reason::UnsupportedRef { reference }, at));
                }
                Err(RefError::Unresolved) => {
                    return Err(self.fail(Reason::UnresolvedRef { reference }, at));
                }
            }
        }
        let single = [
            k.object.additional_properties,
            k.items.filter(|i| i.kind() != Kind::Array),
            k.not,
        ];
        for sub in single.into_iter().flatten() {
            self.check(sub, next)?;
        }
        let lists = [
            k.items.and_then(|i| i.as_array()),
            k.prefix_items,
            k.all_of,
            k.any_of,
            k.one_of,
        ];
        for list in lists.into_iter().flatten() {
            for sub in list {
                self.check(sub, next)?;
            }
        }
        let maps = [k.object.properties, k.defs[0], k.defs[1]];
        for map in maps.into_iter().flatten() {
            for (_, sub) in map {
                if schema_value(sub).is_none() {
                    return Err(self.fail(Reason::BadSchema { keyword: "" }, sub));
                }
                self.check(sub, next)?;
            }
        }
        Ok(())
    }
}
