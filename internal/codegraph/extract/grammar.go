package extract

import (
	"fmt"
	"unsafe"

	ts "github.com/tree-sitter/go-tree-sitter"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"

	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// kind is the node kinds the extractors look at, across all grammars; kNone is everything else.
type kind uint8

const (
	kNone kind = iota
	kError
	// names
	kIdentifier
	kFieldIdentifier
	kTypeIdentifier
	kNamespaceIdentifier
	kPropertyIdentifier
	kPrivatePropertyIdentifier
	kPackageIdentifier
	kQualifiedIdentifier
	kScopedIdentifier
	kScopedTypeIdentifier
	kDestructorName
	kOperatorName
	kTemplateFunction
	kTemplateType
	kGenericType
	kPointerType
	kDottedName
	kString
	kInterpretedStringLiteral
	kRawStringLiteral
	kThis
	kSuper
	// C and C++
	kFunctionDefinition
	kFunctionDeclarator
	kPointerDeclarator
	kParenthesizedDeclarator
	kArrayDeclarator
	kAttributedDeclarator
	kReferenceDeclarator
	kInitDeclarator
	kDeclaration
	kParameterDeclaration
	kOptionalParameterDeclaration
	kVariadicParameterDeclaration
	kParameterList
	kStorageClassSpecifier
	kPreprocFunctionDef
	kClassSpecifier
	kStructSpecifier
	kUnionSpecifier
	kNamespaceDefinition
	kLambdaExpression
	kCallExpression
	kFieldExpression
	kParenthesizedExpression
	kPointerExpression
	kFieldDeclarationList
	kDeclarationList
	// Java
	kMethodDeclaration
	kConstructorDeclaration
	kCompactConstructorDeclaration
	kClassDeclaration
	kInterfaceDeclaration
	kEnumDeclaration
	kRecordDeclaration
	kAnnotationTypeDeclaration
	kMethodInvocation
	kObjectCreationExpression
	kFormalParameters
	kFormalParameter
	kSpreadParameter
	kClassBody
	kVariableDeclarator
	kPackageDeclaration
	// Python
	kClassDefinition
	kCall
	kAttribute
	kParameters
	kDefaultParameter
	kTypedParameter
	kTypedDefaultParameter
	kListSplatPattern
	kDictionarySplatPattern
	kAssignment
	kLambda
	// Go
	kFunctionDeclaration
	kFuncLiteral
	kSelectorExpression
	kShortVarDeclaration
	kVarSpec
	kExpressionList
	kImportSpec
	kPackageClause
	// JavaScript
	kGeneratorFunctionDeclaration
	kFunctionExpression
	kFunction
	kArrowFunction
	kGeneratorFunction
	kMethodDefinition
	kClass
	kNewExpression
	kMemberExpression
	kAssignmentPattern
	kRestPattern
	kAssignmentExpression
	kPair
	kFieldDefinition
	// contexts where a function's name is used as a value (a reference)
	kInitializerList
	kInitializerPair
	kPreprocParams
	kPreprocDefined
	kAttributeSpecifier
	kArgumentList
	kArguments
	kKeywordArgument
	kReturnStatement
	kList
	kTuple
	kArray
	kDecorator
	kLiteralElement
	kKeyedElement
	kMethodReference
	kAssignmentStatement
	kTranslationUnit
	kComment
	kShorthandPropertyIdentifier
	kCompoundStatement
	kPreprocIf  // a C preprocessor conditional, #if or #ifdef to #endif
	kPreprocAlt // its #elif or #else branch, to the #endif
	numKinds
)

// kindNames maps grammar node names to kinds; a name means the same thing in every grammar that
// has it, and the extractors only ask about the kinds of their own language.
func kindNames() map[string]kind {
	return map[string]kind{
		"ERROR":                           kError,
		"identifier":                      kIdentifier,
		"field_identifier":                kFieldIdentifier,
		"type_identifier":                 kTypeIdentifier,
		"namespace_identifier":            kNamespaceIdentifier,
		"property_identifier":             kPropertyIdentifier,
		"private_property_identifier":     kPrivatePropertyIdentifier,
		"package_identifier":              kPackageIdentifier,
		"qualified_identifier":            kQualifiedIdentifier,
		"scoped_identifier":               kScopedIdentifier,
		"scoped_type_identifier":          kScopedTypeIdentifier,
		"destructor_name":                 kDestructorName,
		"operator_name":                   kOperatorName,
		"template_function":               kTemplateFunction,
		"template_type":                   kTemplateType,
		"generic_type":                    kGenericType,
		"pointer_type":                    kPointerType,
		"dotted_name":                     kDottedName,
		"string":                          kString,
		"interpreted_string_literal":      kInterpretedStringLiteral,
		"raw_string_literal":              kRawStringLiteral,
		"this":                            kThis,
		"super":                           kSuper,
		"function_definition":             kFunctionDefinition,
		"function_declarator":             kFunctionDeclarator,
		"pointer_declarator":              kPointerDeclarator,
		"parenthesized_declarator":        kParenthesizedDeclarator,
		"array_declarator":                kArrayDeclarator,
		"attributed_declarator":           kAttributedDeclarator,
		"reference_declarator":            kReferenceDeclarator,
		"init_declarator":                 kInitDeclarator,
		"declaration":                     kDeclaration,
		"parameter_declaration":           kParameterDeclaration,
		"optional_parameter_declaration":  kOptionalParameterDeclaration,
		"variadic_parameter_declaration":  kVariadicParameterDeclaration,
		"parameter_list":                  kParameterList,
		"storage_class_specifier":         kStorageClassSpecifier,
		"preproc_function_def":            kPreprocFunctionDef,
		"compound_statement":              kCompoundStatement,
		"preproc_if":                      kPreprocIf,
		"preproc_ifdef":                   kPreprocIf,
		"preproc_elif":                    kPreprocAlt,
		"preproc_elifdef":                 kPreprocAlt,
		"preproc_else":                    kPreprocAlt,
		"class_specifier":                 kClassSpecifier,
		"struct_specifier":                kStructSpecifier,
		"union_specifier":                 kUnionSpecifier,
		"namespace_definition":            kNamespaceDefinition,
		"lambda_expression":               kLambdaExpression,
		"call_expression":                 kCallExpression,
		"field_expression":                kFieldExpression,
		"parenthesized_expression":        kParenthesizedExpression,
		"pointer_expression":              kPointerExpression,
		"field_declaration_list":          kFieldDeclarationList,
		"declaration_list":                kDeclarationList,
		"method_declaration":              kMethodDeclaration,
		"constructor_declaration":         kConstructorDeclaration,
		"compact_constructor_declaration": kCompactConstructorDeclaration,
		"class_declaration":               kClassDeclaration,
		"interface_declaration":           kInterfaceDeclaration,
		"enum_declaration":                kEnumDeclaration,
		"record_declaration":              kRecordDeclaration,
		"annotation_type_declaration":     kAnnotationTypeDeclaration,
		"method_invocation":               kMethodInvocation,
		"object_creation_expression":      kObjectCreationExpression,
		"formal_parameters":               kFormalParameters,
		"formal_parameter":                kFormalParameter,
		"spread_parameter":                kSpreadParameter,
		"class_body":                      kClassBody,
		"variable_declarator":             kVariableDeclarator,
		"package_declaration":             kPackageDeclaration,
		"class_definition":                kClassDefinition,
		"call":                            kCall,
		"attribute":                       kAttribute,
		"parameters":                      kParameters,
		"default_parameter":               kDefaultParameter,
		"typed_parameter":                 kTypedParameter,
		"typed_default_parameter":         kTypedDefaultParameter,
		"list_splat_pattern":              kListSplatPattern,
		"dictionary_splat_pattern":        kDictionarySplatPattern,
		"assignment":                      kAssignment,
		"lambda":                          kLambda,
		"function_declaration":            kFunctionDeclaration,
		"func_literal":                    kFuncLiteral,
		"selector_expression":             kSelectorExpression,
		"short_var_declaration":           kShortVarDeclaration,
		"var_spec":                        kVarSpec,
		"expression_list":                 kExpressionList,
		"import_spec":                     kImportSpec,
		"package_clause":                  kPackageClause,
		"generator_function_declaration":  kGeneratorFunctionDeclaration,
		"function_expression":             kFunctionExpression,
		"function":                        kFunction,
		"arrow_function":                  kArrowFunction,
		"generator_function":              kGeneratorFunction,
		"method_definition":               kMethodDefinition,
		"class":                           kClass,
		"new_expression":                  kNewExpression,
		"member_expression":               kMemberExpression,
		"assignment_pattern":              kAssignmentPattern,
		"rest_pattern":                    kRestPattern,
		"assignment_expression":           kAssignmentExpression,
		"pair":                            kPair,
		"field_definition":                kFieldDefinition,
		"initializer_list":                kInitializerList,
		"initializer_pair":                kInitializerPair,
		"preproc_params":                  kPreprocParams,
		"preproc_defined":                 kPreprocDefined,
		"attribute_specifier":             kAttributeSpecifier,
		"argument_list":                   kArgumentList,
		"arguments":                       kArguments,
		"keyword_argument":                kKeywordArgument,
		"return_statement":                kReturnStatement,
		"list":                            kList,
		"tuple":                           kTuple,
		"array":                           kArray,
		"decorator":                       kDecorator,
		"literal_element":                 kLiteralElement,
		"keyed_element":                   kKeyedElement,
		"method_reference":                kMethodReference,
		"assignment_statement":            kAssignmentStatement,
		"translation_unit":                kTranslationUnit,
		"comment":                         kComment,
		"shorthand_property_identifier":   kShorthandPropertyIdentifier,
	}
}

// fields holds the grammar's ids of the field names the extractors use; 0 means absent.
type fields struct {
	declarator, name, body, function, field, object, property, attribute, operand, typ, value,
	left, right, key, receiver, parameters, parameter, scope, constructor, definition, path, argument uint16
}

// grammar is one language's parser table plus what the extractors need to read its trees.
type grammar struct {
	lang  lang.Lang
	ptr   unsafe.Pointer // the TSLanguage
	ts    *ts.Language
	kinds []kind // by node symbol
	f     fields
}

func languagePointer(l lang.Lang) unsafe.Pointer {
	switch l {
	case lang.C:
		return tsc.Language()
	case lang.CPP:
		return tscpp.Language()
	case lang.Java:
		return tsjava.Language()
	case lang.Python:
		return tspy.Language()
	case lang.Go:
		return tsgo.Language()
	case lang.JavaScript:
		return tsjs.Language()
	}
	return nil
}

func newGrammar(l lang.Lang, names map[string]kind) (*grammar, error) {
	p := languagePointer(l)
	if p == nil {
		return nil, fmt.Errorf("no grammar for %v", l)
	}
	tl := ts.NewLanguage(p)
	if v := tl.AbiVersion(); v < ts.MIN_COMPATIBLE_LANGUAGE_VERSION || v > ts.LANGUAGE_VERSION {
		return nil, fmt.Errorf("%v grammar has ABI %d; go-tree-sitter reads %d to %d", l, v, ts.MIN_COMPATIBLE_LANGUAGE_VERSION, ts.LANGUAGE_VERSION)
	}
	g := &grammar{lang: l, ptr: p, ts: tl}
	n := tl.NodeKindCount()
	// ERROR is the builtin symbol 65535, outside NodeKindCount.
	g.kinds = make([]kind, 1<<16)
	for id := uint32(0); id < n; id++ {
		if !tl.NodeKindIsNamed(uint16(id)) {
			continue
		}
		if k, ok := names[tl.NodeKindForId(uint16(id))]; ok {
			g.kinds[id] = k
		}
	}
	g.kinds[0xFFFF] = kError
	fid := func(s string) uint16 { return tl.FieldIdForName(s) }
	g.f = fields{
		declarator: fid("declarator"), name: fid("name"), body: fid("body"), function: fid("function"),
		field: fid("field"), object: fid("object"), property: fid("property"), attribute: fid("attribute"),
		operand: fid("operand"), typ: fid("type"), value: fid("value"), left: fid("left"), right: fid("right"),
		key: fid("key"), receiver: fid("receiver"), parameters: fid("parameters"), parameter: fid("parameter"), scope: fid("scope"),
		constructor: fid("constructor"), definition: fid("definition"), path: fid("path"), argument: fid("argument"),
	}
	return g, nil
}

// Grammars holds one grammar per language: the parser tables and the node kinds the extractors
// read. Load them once and share them between the indexers of one process.
type Grammars [lang.Count]*grammar

// LoadGrammars loads every language's grammar.
func LoadGrammars() (*Grammars, error) {
	if err := layoutOK(); err != nil {
		return nil, err
	}
	useArenaAllocator()
	var gs Grammars
	names := kindNames()
	for _, l := range lang.All() {
		g, err := newGrammar(l, names)
		if err != nil {
			return nil, err
		}
		gs[l] = g
	}
	return &gs, nil
}
