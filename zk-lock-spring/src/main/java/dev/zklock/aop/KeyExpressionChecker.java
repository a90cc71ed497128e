package dev.zklock.aop;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.ResolvableType;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.Indexer;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Finds, before the first call, what in a key expression cannot evaluate: a {@code #name}
 * the method does not have, a bare word that is not a property of the root object
 * (usually a literal whose quotes were forgotten), a {@code @bean} that does not exist,
 * and a property or method that the declared type of a parameter (or of a property before
 * it) does not have.
 *
 * <p>
 * It checks only what is known statically and gives up where it is not: on
 * {@code Object}, on generic type variables, behind indexers, selections and projections,
 * and on type references. SpEL resolves properties on the runtime type, so a check can
 * only ever be less strict than the call, never stricter than the declared types allow.
 */
final class KeyExpressionChecker {

	/** The root object's properties, as SpEL sees them. */
	private static final Class<?> ROOT = LockExpressionRootObject.class;

	private final @Nullable BeanFactory beanFactory;

	KeyExpressionChecker(@Nullable BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * What is wrong with an expression, and what to do about it.
	 *
	 * @param problem the problem, as a sentence fragment after "it"
	 * @param action what to do, as a sentence
	 */
	record Problem(String problem, String action) {
	}

	/**
	 * Check a parsed expression against the method it locks.
	 * @param ast the expression's root node
	 * @param method the method
	 * @param targetClass the class the method is called on, which resolves its generic
	 * types
	 * @param parameterNames the method's parameter names, {@code null} if unknown
	 * @return the first problem found, or {@code null}
	 */
	@Nullable Problem check(SpelNode ast, Method method, Class<?> targetClass, @Nullable String @Nullable [] parameterNames) {
		Set<String> unknownVariables = new TreeSet<>();
		List<Problem> problems = new ArrayList<>();
		walk(ast, new Scope(method, targetClass, parameterNames), unknownVariables, problems);
		if (!unknownVariables.isEmpty()) {
			return unknownVariables(method, parameterNames, unknownVariables);
		}
		return problems.isEmpty() ? null : problems.get(0);
	}

	private void walk(SpelNode node, Scope scope, Set<String> unknownVariables, List<Problem> problems) {
		if (node instanceof Selection || node instanceof Projection) {
			// Evaluated against each element: nothing is known about #this there
			return;
		}
		if (node instanceof Indexer) {
			// #map[key]: a bare word in an index is a map key, not a property of the root
			for (int i = 0; i < node.getChildCount(); i++) {
				if (!(node.getChild(i) instanceof PropertyOrFieldReference)) {
					walk(node.getChild(i), scope, unknownVariables, problems);
				}
			}
			return;
		}
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			if (!scope.isKnownVariable(name)) {
				unknownVariables.add(name);
			}
		}
		else if (node instanceof FunctionReference) {
			String name = node.toStringAST().substring(1, node.toStringAST().indexOf('('));
			problems.add(new Problem("calls the function #" + name + "(), but no functions are registered",
					"Call a method on a parameter or a bean instead, e.g. @myBean.method(#arg)"));
		}
		else if (node instanceof CompoundExpression) {
			checkChain(node, scope, problems);
			for (int i = 0; i < node.getChildCount(); i++) {
				SpelNode child = node.getChild(i);
				if (child instanceof MethodReference) {
					// Its target is the step before; only its arguments are evaluated
					// afresh
					walkChildren(child, scope, unknownVariables, problems);
				}
				else if (!(child instanceof PropertyOrFieldReference)) {
					walk(child, scope, unknownVariables, problems);
				}
			}
			return;
		}
		else if (node instanceof PropertyOrFieldReference property) {
			// Not after a dot: it is read from the root object
			checkRootProperty(property, problems);
		}
		else if (node instanceof MethodReference reference && findMethods(ROOT, reference.getName()).isEmpty()) {
			problems.add(new Problem(
					"calls " + reference.getName() + "() on the root object, which has no such method"
							+ rootProperties(),
					"Call it on a parameter or a bean, e.g. #arg." + reference.getName() + "()"));
		}
		else if (node instanceof BeanReference bean) {
			checkBean(bean, problems);
		}
		walkChildren(node, scope, unknownVariables, problems);
	}

	/**
	 * Operands, method arguments and indexes are evaluated against the root object again.
	 */
	private void walkChildren(SpelNode node, Scope scope, Set<String> unknownVariables, List<Problem> problems) {
		for (int i = 0; i < node.getChildCount(); i++) {
			walk(node.getChild(i), scope, unknownVariables, problems);
		}
	}

	/**
	 * A chain like {@code #order.customer.id} or {@code @bean.name}: follow the declared
	 * types for as long as they are known.
	 */
	private void checkChain(SpelNode chain, Scope scope, List<Problem> problems) {
		SpelNode first = chain.getChild(0);
		Class<?> type;
		String described;
		if (first instanceof VariableReference) {
			String name = first.toStringAST().substring(1);
			type = scope.variableType(name);
			described = "#" + name;
		}
		else if (first instanceof BeanReference) {
			// A bean's declared type can be narrower or wider than the object: only its
			// existence is checked, by the walk
			return;
		}
		else if (first instanceof PropertyOrFieldReference property) {
			if (!checkRootProperty(property, problems)) {
				return;
			}
			type = propertyType(ROOT, property.getName());
			described = property.getName();
		}
		else {
			return;
		}
		for (int i = 1; i < chain.getChildCount() && isCheckable(type); i++) {
			SpelNode step = chain.getChild(i);
			if (step instanceof PropertyOrFieldReference property) {
				if (!hasProperty(type, property.getName())) {
					problems.add(new Problem(
							"reads property '" + property.getName() + "' of " + described + ", a " + type.getName()
									+ ", which has no such property (no " + getter("get", property.getName()) + " or "
									+ getter("is", property.getName()) + " method, nor a public field)",
							"Fix the property name, or call a method that " + type.getSimpleName() + " has"));
					return;
				}
				type = propertyType(type, property.getName());
				described = described + "." + property.getName();
			}
			else if (step instanceof MethodReference reference) {
				List<Method> methods = findMethods(type, reference.getName());
				if (methods.isEmpty()) {
					problems.add(new Problem(
							"calls " + reference.getName() + "() on " + described + ", a " + type.getName()
									+ ", which has no public method of that name",
							"Fix the method name, or call a method that " + type.getSimpleName() + " has"));
					return;
				}
				type = (methods.size() == 1) ? methods.get(0).getReturnType() : Object.class;
				described = described + "." + reference.getName() + "()";
			}
			else {
				return;
			}
		}
	}

	/**
	 * A property read from the root object; returns whether it exists.
	 */
	private boolean checkRootProperty(PropertyOrFieldReference property, List<Problem> problems) {
		String name = property.getName();
		if (hasProperty(ROOT, name)) {
			return true;
		}
		problems.add(new Problem(
				"uses the bare word '" + name + "', which is not a property of the expression's root object"
						+ rootProperties(),
				"If '" + name + "' is meant as text, put it in single quotes: key = \"'" + name
						+ "'\"; a parameter is #" + name + ", a bean @" + name));
		return false;
	}

	private void checkBean(BeanReference bean, List<Problem> problems) {
		String name = bean.getName();
		String lookup = name.startsWith("&") ? name.substring(1) : name;
		if (this.beanFactory != null && !this.beanFactory.containsBean(lookup)) {
			problems.add(new Problem("refers to the bean '" + lookup + "', but there is no bean of that name",
					"Define the bean, or fix its name in the expression"));
		}
	}

	private static Problem unknownVariables(Method method, @Nullable String @Nullable [] names, Set<String> unknown) {
		String variables = String.join(", ", unknown.stream().map((name) -> "#" + name).toList());
		if (names == null) {
			return new Problem("refers to parameters by name (" + variables + ") but their names are not available",
					"Compile with -parameters, or refer to them as #p0, #p1, ...");
		}
		return new Problem(
				"refers to " + variables + ", which the method does not have; its parameters are "
						+ ((names.length == 0) ? "none" : String.join(", ", names)),
				"Use one of the method's parameters (by name, or #p0, #p1, ...), #root, or quote a literal");
	}

	private static String rootProperties() {
		return " (its properties are args, method, methodName, target and targetClass)";
	}

	/**
	 * Whether anything can be said about a type's members: not for {@code Object}, whose
	 * runtime type may be anything.
	 */
	private static boolean isCheckable(Class<?> type) {
		return type != Object.class && type != void.class;
	}

	/**
	 * As SpEL's reflective property accessor reads it: a getter ({@code getX()}, or
	 * {@code isX()} for a boolean), a public field, {@code length} of an array; and,
	 * leniently, a no-argument method of the property's own name, as records have.
	 */
	static boolean hasProperty(Class<?> type, String name) {
		if (type.isArray() && name.equals("length")) {
			return true;
		}
		return propertyAccessor(type, name) != null || publicField(type, name) != null;
	}

	private static Class<?> propertyType(Class<?> type, String name) {
		Method getter = propertyAccessor(type, name);
		if (getter != null) {
			return getter.getReturnType();
		}
		Field field = publicField(type, name);
		return (field != null) ? field.getType() : Object.class;
	}

	private static @Nullable Method propertyAccessor(Class<?> type, String name) {
		for (Method method : members(type)) {
			if (method.getParameterCount() != 0 || Modifier.isStatic(method.getModifiers()) || method.isBridge()) {
				continue;
			}
			String methodName = method.getName();
			if (methodName.equals(accessorName("get", name)) || methodName.equals(name)
					|| (methodName.equals(accessorName("is", name))
							&& (method.getReturnType() == boolean.class || method.getReturnType() == Boolean.class))) {
				return method;
			}
		}
		return null;
	}

	private static @Nullable Field publicField(Class<?> type, String name) {
		try {
			return type.getField(name);
		}
		catch (NoSuchFieldException ex) {
			return null;
		}
	}

	private static List<Method> findMethods(Class<?> type, String name) {
		Set<Method> found = new LinkedHashSet<>();
		for (Method method : members(type)) {
			if (method.getName().equals(name) && !method.isBridge()) {
				found.add(method);
			}
		}
		return new ArrayList<>(found);
	}

	/**
	 * The public methods SpEL can call on a value of a type: a primitive is boxed, and an
	 * interface's value is an object too.
	 */
	private static List<Method> members(Class<?> type) {
		Class<?> boxed = ClassUtils.resolvePrimitiveIfNecessary(type);
		List<Method> methods = new ArrayList<>(List.of(boxed.getMethods()));
		if (boxed.isInterface()) {
			methods.addAll(List.of(Object.class.getMethods()));
		}
		return methods;
	}

	private static String accessorName(String prefix, String property) {
		return prefix + StringUtils.capitalize(property);
	}

	private static String getter(String prefix, String property) {
		return accessorName(prefix, property) + "()";
	}

	/**
	 * What {@code #name} can refer to in a key expression: the method's parameters, by
	 * name or position, and {@code #root} / {@code #this}.
	 */
	private static final class Scope {

		private final Method method;

		private final Class<?> targetClass;

		private final @Nullable String @Nullable [] names;

		Scope(Method method, Class<?> targetClass, @Nullable String @Nullable [] names) {
			this.method = method;
			this.targetClass = targetClass;
			this.names = names;
		}

		boolean isKnownVariable(String name) {
			return name.equals("root") || name.equals("this") || parameterIndex(name) >= 0;
		}

		Class<?> variableType(String name) {
			if (name.equals("root") || name.equals("this")) {
				return ROOT;
			}
			int index = parameterIndex(name);
			if (index < 0) {
				return Object.class;
			}
			// A type variable resolved on the target class; its bound otherwise
			return ResolvableType.forMethodParameter(this.method, index, this.targetClass)
				.resolve(this.method.getParameterTypes()[index]);
		}

		private int parameterIndex(String name) {
			int count = this.method.getParameterCount();
			for (int i = 0; i < count; i++) {
				// A Kotlin suspend function has one parameter more (its continuation)
				// than names
				if (name.equals("p" + i) || name.equals("a" + i)
						|| (this.names != null && i < this.names.length && name.equals(this.names[i]))) {
					return i;
				}
			}
			return -1;
		}

	}

}
